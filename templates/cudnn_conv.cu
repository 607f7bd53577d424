// One 3x3 convolution (stride 1, zero padding 1) through cuDNN's legacy API with a chosen
// algorithm, or through its backend (graph) API with every engine configuration its heuristics
// offer, behind a tiny C ABI for ctypes (wino_tvm/cudnn.py builds and loads it).
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
#include <vector>

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

// ---- The backend API: every engine configuration, each its own execution plan ---------------
// cudnn.benchmark in PyTorch times at most 10 configurations (its benchmark_limit) and keeps the
// fastest, and its pick varies by process (experiments: cudnn_spread). Here the caller gets
// all the configurations that cuDNN's heuristics (mode A) and its fallback list offer, as
// finalized plans, and times them itself. NHWC only; x, w and y are 16-byte aligned.
namespace {

// CUDNN_ATTR_*_HANDLE are deprecated in 9.x headers but still required by the 9.x libraries.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
constexpr cudnnBackendAttributeName_t kPlanHandle = CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
constexpr cudnnBackendAttributeName_t kGraphHandle = CUDNN_ATTR_OPERATIONGRAPH_HANDLE;
#pragma GCC diagnostic pop

constexpr int64_t kUidX = 'x', kUidW = 'w', kUidY = 'y';

// Owns one backend descriptor.
struct Desc {
  cudnnBackendDescriptor_t d = nullptr;
  Desc() = default;
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  Desc(Desc&& other) noexcept : d(other.d) { other.d = nullptr; }
  ~Desc() {
    if (d) cudnnBackendDestroyDescriptor(d);
  }
  cudnnStatus_t create(cudnnBackendDescriptorType_t type) {
    return cudnnBackendCreateDescriptor(type, &d);
  }
};

cudnnStatus_t set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, int64_t count, const void* value) {
  return cudnnBackendSetAttribute(d, name, type, count, value);
}

struct Handle {
  cudnnHandle_t h = nullptr;
  ~Handle() {
    if (h) cudnnDestroy(h);
  }
};

// Members go in reverse order: the plans, then what they refer to, the handle last.
struct Engines {
  Handle handle;
  Desc x, w, y, conv, op, graph;
  std::vector<Desc> configs;  // kept alive for the plans made from them
  std::vector<Desc> plans;
  std::vector<std::string> names;
  std::vector<int64_t> workspace;
};

// An NHWC tensor of dims (n, c, h, w) as the backend API wants them: logical NCHW with strides.
cudnnStatus_t tensor(Desc& t, int64_t uid, cudnnDataType_t type, int64_t n, int64_t c,
                     int64_t h, int64_t w) {
  const int64_t dims[4] = {n, c, h, w}, strides[4] = {h * w * c, 1, w * c, c}, align = 16;
  CC_CHECK(t.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR));
  CC_CHECK(set(t.d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
  CC_CHECK(set(t.d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
  CC_CHECK(set(t.d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
  CC_CHECK(set(t.d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  CC_CHECK(set(t.d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
  CC_CHECK(cudnnBackendFinalize(t.d));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t build_graph(Engines* e, int n, int h, int w, int c, int k, cudnnDataType_t in_t,
                          cudnnDataType_t out_t, cudnnDataType_t comp_t, float alpha) {
  CC_CHECK(cudnnCreate(&e->handle.h));
  CC_CHECK(tensor(e->x, kUidX, in_t, n, c, h, w));
  CC_CHECK(tensor(e->w, kUidW, in_t, k, c, 3, 3));
  CC_CHECK(tensor(e->y, kUidY, out_t, n, k, h, w));
  const int64_t dims = 2, ones[2] = {1, 1};
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  CC_CHECK(e->conv.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
  CC_CHECK(set(e->conv.d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp_t));
  CC_CHECK(set(e->conv.d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
  CC_CHECK(set(e->conv.d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims));
  for (const auto name : {CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
                          CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS})
    CC_CHECK(set(e->conv.d, name, CUDNN_TYPE_INT64, 2, ones));  // all 1 for a same 3x3 conv
  CC_CHECK(cudnnBackendFinalize(e->conv.d));
  const float beta = 0.0f;
  CC_CHECK(e->op.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
  const auto desc = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, desc, 1, &e->x.d));
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, desc, 1, &e->w.d));
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, desc, 1, &e->y.d));
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, desc, 1, &e->conv.d));
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1,
               &alpha));
  CC_CHECK(set(e->op.d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
  CC_CHECK(cudnnBackendFinalize(e->op.d));
  CC_CHECK(e->graph.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
  CC_CHECK(set(e->graph.d, CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, 1, &e->op.d));
  CC_CHECK(set(e->graph.d, kGraphHandle, CUDNN_TYPE_HANDLE, 1, &e->handle.h));
  CC_CHECK(cudnnBackendFinalize(e->graph.d));
  return CUDNN_STATUS_SUCCESS;
}

// "eng<global index>" and its knob choices "_k<type>=<value>", as cudnn_frontend names them.
cudnnStatus_t config_name(cudnnBackendDescriptor_t cfg, std::string* name) {
  Desc engine;
  int64_t count = 0, index = -1;
  CC_CHECK(engine.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR));
  CC_CHECK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &engine.d));
  CC_CHECK(cudnnBackendGetAttribute(engine.d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                    &count, &index));
  *name = "eng" + std::to_string(index);
  std::vector<Desc> knobs(CUDNN_KNOB_TYPE_COUNTS);
  std::vector<cudnnBackendDescriptor_t> raw;
  for (Desc& knob : knobs) {
    CC_CHECK(knob.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR));
    raw.push_back(knob.d);
  }
  CC_CHECK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, (int64_t)raw.size(), &count,
                                    raw.data()));
  for (int64_t i = 0; i < count; ++i) {
    cudnnBackendKnobType_t type;
    int64_t value = 0, got = 0;
    CC_CHECK(cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                      CUDNN_TYPE_KNOB_TYPE, 1, &got, &type));
    CC_CHECK(cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64,
                                      1, &got, &value));
    *name += "_k" + std::to_string((int)type) + "=" + std::to_string(value);
  }
  return CUDNN_STATUS_SUCCESS;
}

// Adds the plans of heuristic mode `mode`'s configurations that finalize, skipping names
// already there; a configuration cuDNN will not build for this graph is left out.
cudnnStatus_t add_configs(Engines* e, cudnnBackendHeurMode_t mode) {
  Desc heur;
  CC_CHECK(heur.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
  CC_CHECK(set(heur.d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &e->graph.d));
  CC_CHECK(set(heur.d, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
  CC_CHECK(cudnnBackendFinalize(heur.d));
  int64_t count = 0;
  CC_CHECK(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<Desc> configs(count);
  std::vector<cudnnBackendDescriptor_t> raw;
  for (Desc& cfg : configs) {
    CC_CHECK(cfg.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(cfg.d);
  }
  CC_CHECK(cudnnBackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, raw.data()));
  for (int64_t i = 0; i < count; ++i) {
    std::string name;
    if (config_name(raw[i], &name) != CUDNN_STATUS_SUCCESS) continue;
    bool seen = false;
    for (const std::string& other : e->names) seen = seen || other == name;
    Desc plan;
    int64_t bytes = 0, got = 0;
    if (seen || plan.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR) != CUDNN_STATUS_SUCCESS ||
        set(plan.d, kPlanHandle, CUDNN_TYPE_HANDLE, 1, &e->handle.h) != CUDNN_STATUS_SUCCESS ||
        set(plan.d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &raw[i]) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendFinalize(plan.d) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                 CUDNN_TYPE_INT64, 1, &got, &bytes) != CUDNN_STATUS_SUCCESS)
      continue;
    e->plans.push_back(std::move(plan));
    e->configs.push_back(std::move(configs[i]));
    e->names.push_back(name);
    e->workspace.push_back(bytes);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

// The graph y = alpha * conv(x, w) (NHWC) and a plan for each engine configuration of
// heuristics mode A and of the fallback list that cuDNN builds for it. No plan at all is
// CUDNN_STATUS_NOT_SUPPORTED.
CC_API int cc_engines_create(int n, int h, int w, int c, int k, const char* in_type,
                             const char* out_type, const char* compute_type, float alpha,
                             void** engines) {
  int in_t = 0, out_t = 0, comp_t = 0;
  *engines = nullptr;
  if (!lookup(kDataTypes, in_type, "data type", &in_t) ||
      !lookup(kDataTypes, out_type, "data type", &out_t) ||
      !lookup(kDataTypes, compute_type, "data type", &comp_t))
    return CUDNN_STATUS_BAD_PARAM;
  Engines* e = new Engines;
  cudnnStatus_t status = build_graph(e, n, h, w, c, k, static_cast<cudnnDataType_t>(in_t),
                                     static_cast<cudnnDataType_t>(out_t),
                                     static_cast<cudnnDataType_t>(comp_t), alpha);
  for (const auto mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
    if (status == CUDNN_STATUS_SUCCESS) status = add_configs(e, mode);
  if (status == CUDNN_STATUS_SUCCESS && e->plans.empty()) {
    last_error = "no engine configuration of heuristics mode A or the fallback list builds";
    status = CUDNN_STATUS_NOT_SUPPORTED;
  }
  if (status != CUDNN_STATUS_SUCCESS) {
    delete e;
    return status;
  }
  *engines = e;
  return CUDNN_STATUS_SUCCESS;
}

CC_API int cc_engines_count(void* engines) {
  return (int)static_cast<Engines*>(engines)->plans.size();
}

CC_API const char* cc_engines_name(void* engines, int i) {
  return static_cast<Engines*>(engines)->names.at(i).c_str();
}

CC_API size_t cc_engines_workspace_bytes(void* engines, int i) {
  return (size_t) static_cast<Engines*>(engines)->workspace.at(i);
}

// Plan i on `stream`; the workspace must hold cc_engines_workspace_bytes(i).
CC_API int cc_engines_run(void* engines, int i, void* x, void* w, void* y, void* workspace,
                          cudaStream_t stream) {
  Engines* e = static_cast<Engines*>(engines);
  const int64_t uids[3] = {kUidX, kUidW, kUidY};
  void* pointers[3] = {x, w, y};
  Desc pack;
  CC_CHECK(cudnnSetStream(e->handle.h, stream));
  CC_CHECK(pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
  CC_CHECK(set(pack.d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
  CC_CHECK(set(pack.d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers));
  CC_CHECK(set(pack.d, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
  CC_CHECK(cudnnBackendFinalize(pack.d));
  CC_CHECK(cudnnBackendExecute(e->handle.h, e->plans.at(i).d, pack.d));
  return CUDNN_STATUS_SUCCESS;
}

CC_API void cc_engines_destroy(void* engines) { delete static_cast<Engines*>(engines); }
