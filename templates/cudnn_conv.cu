// One 3x3 convolution (stride 1, zero padding 1) through cuDNN's legacy API with a chosen
// algorithm, behind a tiny C ABI for ctypes (wino_tvm/cudnn.py builds and loads it).
// Build: nvcc -shared -Xcompiler -fPIC -O2 -I<cudnn>/include cudnn_conv.cu \
//          -L<cudnn>/lib -l:libcudnn.so.9 -Xlinker -rpath,<cudnn>/lib -o libcudnn_conv.so
// Every int returned is a cudnnStatus_t (0 = success); cc_last_error says what failed.
// Tensors are caller-owned device buffers; x is [N,C,H,W] and w [K,C,3,3] in the chosen
// layout's order (NCHW: as written; NHWC: x as N,H,W,C and w as K,3,3,C), y like x with K.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstring>
#include <string>

#define CC_API extern "C" __attribute__((visibility("default")))

namespace {

thread_local std::string last_error;

struct Plan {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_bytes = 0;
};

// Records what failed (the call's function name), with cuDNN's own detail, and passes the
// status on.
cudnnStatus_t fail(cudnnStatus_t status, const char* call) {
  char detail[1024] = "";
  cudnnGetLastErrorString(detail, sizeof detail);
  const std::string text(call);
  last_error = text.substr(0, text.find('(')) + ": " + cudnnGetErrorString(status);
  if (detail[0]) last_error += " (" + std::string(detail) + ")";
  return status;
}

#define CC_CHECK(call)                                        \
  do {                                                        \
    const cudnnStatus_t cc_status_ = (call);                  \
    if (cc_status_ != CUDNN_STATUS_SUCCESS) return fail(cc_status_, #call); \
  } while (0)

struct Name {
  const char* name;
  int value;
};

const Name kDataTypes[] = {{"fp32", CUDNN_DATA_FLOAT}, {"fp16", CUDNN_DATA_HALF},
                           {"int8", CUDNN_DATA_INT8}, {"int32", CUDNN_DATA_INT32},
                           {"fp64", CUDNN_DATA_DOUBLE}};
const Name kLayouts[] = {{"NCHW", CUDNN_TENSOR_NCHW}, {"NHWC", CUDNN_TENSOR_NHWC}};
const Name kAlgos[] = {
    {"IMPLICIT_GEMM", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    {"IMPLICIT_PRECOMP_GEMM", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"GEMM", CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
    {"DIRECT", CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
    {"FFT", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
    {"FFT_TILING", CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
    {"WINOGRAD", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
    {"WINOGRAD_NONFUSED", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED}};
const Name kMathTypes[] = {{"default", CUDNN_DEFAULT_MATH},
                           {"tensor_op", CUDNN_TENSOR_OP_MATH},
                           {"fma", CUDNN_FMA_MATH}};

template <size_t kCount>
bool lookup(const Name (&table)[kCount], const char* name, const char* what, int* value) {
  for (const Name& entry : table) {
    if (!strcmp(entry.name, name)) {
      *value = entry.value;
      return true;
    }
  }
  last_error = std::string("unknown ") + what + " '" + name + "'";
  return false;
}

void destroy(Plan* p) {
  if (p->conv) cudnnDestroyConvolutionDescriptor(p->conv);
  if (p->w) cudnnDestroyFilterDescriptor(p->w);
  if (p->y) cudnnDestroyTensorDescriptor(p->y);
  if (p->x) cudnnDestroyTensorDescriptor(p->x);
  if (p->handle) cudnnDestroy(p->handle);
  delete p;
}

cudnnStatus_t build(Plan* p, int n, int h, int w, int c, int k, int in_type, int layout,
                    int out_type, int compute_type, int algo, int math) {
  const auto fmt = static_cast<cudnnTensorFormat_t>(layout);
  const auto in_t = static_cast<cudnnDataType_t>(in_type);
  CC_CHECK(cudnnCreate(&p->handle));
  CC_CHECK(cudnnCreateTensorDescriptor(&p->x));
  CC_CHECK(cudnnCreateTensorDescriptor(&p->y));
  CC_CHECK(cudnnCreateFilterDescriptor(&p->w));
  CC_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
  CC_CHECK(cudnnSetTensor4dDescriptor(p->x, fmt, in_t, n, c, h, w));
  CC_CHECK(cudnnSetFilter4dDescriptor(p->w, in_t, fmt, k, c, 3, 3));
  CC_CHECK(cudnnSetConvolution2dDescriptor(p->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                           static_cast<cudnnDataType_t>(compute_type)));
  CC_CHECK(cudnnSetConvolutionMathType(p->conv, static_cast<cudnnMathType_t>(math)));
  int on = 0, oc = 0, oh = 0, ow = 0;
  CC_CHECK(cudnnGetConvolution2dForwardOutputDim(p->conv, p->x, p->w, &on, &oc, &oh, &ow));
  CC_CHECK(cudnnSetTensor4dDescriptor(p->y, fmt, static_cast<cudnnDataType_t>(out_type), on, oc,
                                      oh, ow));
  p->algo = static_cast<cudnnConvolutionFwdAlgo_t>(algo);
  CC_CHECK(cudnnGetConvolutionForwardWorkspaceSize(p->handle, p->x, p->w, p->conv, p->y, p->algo,
                                                   &p->workspace_bytes));
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

CC_API size_t cc_version(void) { return cudnnGetVersion(); }

CC_API const char* cc_status_string(int status) {
  return cudnnGetErrorString(static_cast<cudnnStatus_t>(status));
}

CC_API const char* cc_last_error(void) { return last_error.c_str(); }

// Descriptors and workspace size for one algorithm; cuDNN refuses unsupported combinations
// here (CUDNN_STATUS_NOT_SUPPORTED) or, at the latest, in cc_run.
CC_API int cc_create(int n, int h, int w, int c, int k, const char* in_type, const char* layout,
                     const char* out_type, const char* compute_type, const char* algo,
                     const char* math, void** plan) {
  int in_t = 0, lay = 0, out_t = 0, comp_t = 0, alg = 0, mth = 0;
  *plan = nullptr;
  if (!lookup(kDataTypes, in_type, "data type", &in_t) ||
      !lookup(kLayouts, layout, "layout", &lay) ||
      !lookup(kDataTypes, out_type, "data type", &out_t) ||
      !lookup(kDataTypes, compute_type, "data type", &comp_t) ||
      !lookup(kAlgos, algo, "algorithm", &alg) || !lookup(kMathTypes, math, "math type", &mth)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  Plan* p = new Plan;
  const cudnnStatus_t status = build(p, n, h, w, c, k, in_t, lay, out_t, comp_t, alg, mth);
  if (status != CUDNN_STATUS_SUCCESS) {
    destroy(p);
    return status;
  }
  *plan = p;
  return CUDNN_STATUS_SUCCESS;
}

CC_API size_t cc_workspace_bytes(void* plan) { return static_cast<Plan*>(plan)->workspace_bytes; }

// y = alpha * conv(x, w) on `stream`; the workspace must hold cc_workspace_bytes.
CC_API int cc_run(void* plan, const void* x, const void* w, void* y, void* workspace,
                  float alpha, cudaStream_t stream) {
  Plan* p = static_cast<Plan*>(plan);
  const float beta = 0.0f;
  CC_CHECK(cudnnSetStream(p->handle, stream));
  CC_CHECK(cudnnConvolutionForward(p->handle, &alpha, p->x, x, p->w, w, p->conv, p->algo,
                                   workspace, p->workspace_bytes, &beta, p->y, y));
  return CUDNN_STATUS_SUCCESS;
}

CC_API void cc_destroy(void* plan) {
  if (plan) destroy(static_cast<Plan*>(plan));
}
