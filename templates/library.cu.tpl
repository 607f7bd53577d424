// Shared-library build of one generated 3x3 convolution, with a small C ABI (ctypes, PyTorch).
// Rendered by wino_tvm/library.py; build:
//   nvcc -shared -Xcompiler -fPIC -Xcompiler -fvisibility=hidden -O3 -arch=sm_XX library.cu
// Conv: x[N,H,W,C] (NHWC) * w[3,3,C,K] (HWIO) -> y[N,H,W,K], stride 1, zero padding 1, then
// the epilogue it was built with (wino_describe's "epilogue"): y = relu(conv + bias + residual),
// bias[K] and residual[N,H,W,K] of y's type (float for int8 inputs). Parts it was built without
// take NULL. For int8 inputs an fp16 or int8 y (wino_describe's "out") is that divided by y_scale
// (one float in device memory), int8 rounded to nearest even and saturated to [-127, 127];
// other libraries take a NULL y_scale.
// Every entry point returns a cudaError_t as int (0 = success); wino_error_string names it.
// The caller owns all memory, in two buffers 256-byte aligned (as cudaMalloc and PyTorch's
// allocator return):
// - the workspace, wino_workspace_bytes(), which wino_weight_transform fills and wino_forward
//   reads, so it must outlive both and be passed to both at the same address;
// - the scratch, wino_scratch_bytes() (any pointer where that is 0), what one wino_forward keeps
//   between its kernels: free again when the call's work on its stream is done, so that
//   libraries running in turn on one stream may share it.
// Neither may be shared by concurrent calls.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

// ---- generated kernels (opaque) -------------------------------------------------------------
{{KERNELS}}
// ---- end of generated kernels ---------------------------------------------------------------

// The generated preamble may #define short names (uint, uchar, ...), so the code below spells
// its types out and prefixes its names with wb_/k, as the standalone harness does.
typedef {{IN_T}} IN_T;
typedef {{OUT_T}} OUT_T;
typedef {{EPI_T}} EPI_T;  // bias and residual

#define WB_API extern "C" __attribute__((visibility("default")))
// Errors go back to the caller; the launch lists below are rendered with these two macros.
#define WB_CHECK(call)                          \
  do {                                          \
    const cudaError_t wb_err_ = (call);         \
    if (wb_err_ != cudaSuccess) return wb_err_; \
  } while (0)
#define WB_CHECK_LAUNCH(kernel) WB_CHECK(cudaGetLastError())

static const char* const kDescription = {{DESCRIPTION}};

// ---- buffer layout: each workspace at a 2 MiB boundary inside the caller's buffer ------------
// A buffer across a 2 MiB boundary can slow the kernels that read it: on the H100 the N=128 14²
// C=256 kernels, whose blocks re-read U from L2, took 1.06-1.18x longer with U across some
// boundaries (experiments: workspace_placement). So the library aligns the caller's
// 256-byte aligned buffers itself; the *_bytes() calls include what that can skip.
static constexpr size_t kCallerAlign = 256;
static constexpr size_t kAlign = size_t{2} << 20;
static constexpr size_t wb_align(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
{{BUFFER_OFFSETS}}
static constexpr size_t wb_caller_bytes(size_t n) { return n == 0 ? 0 : n + kAlign - kCallerAlign; }

static char* wb_layout_base(void* buffer) {
  return reinterpret_cast<char*>(wb_align(reinterpret_cast<uintptr_t>(buffer)));
}

// ---- kernel attributes ----------------------------------------------------------------------
// Per device, since function attributes belong to a device's context; set once, because the
// call costs host time on every forward otherwise. Setting one twice (a race) is harmless.
static constexpr int kMaxDevices = 64;
static std::atomic<bool> wb_configured[kMaxDevices];

static cudaError_t wb_configure_kernels() {
  int device = 0;
  WB_CHECK(cudaGetDevice(&device));
  const bool cached = device >= 0 && device < kMaxDevices;
  if (cached && wb_configured[device].load(std::memory_order_acquire)) return cudaSuccess;
{{KERNEL_ATTRS}}
  if (cached) wb_configured[device].store(true, std::memory_order_release);
  return cudaSuccess;
}

// A buffer the layout needs must be there, aligned; one it does not need is never read.
static cudaError_t wb_check_buffer(const void* buffer, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (buffer == nullptr || reinterpret_cast<uintptr_t>(buffer) % kCallerAlign != 0) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

// ---- C ABI ----------------------------------------------------------------------------------
WB_API size_t wino_workspace_bytes(void) { return wb_caller_bytes(kWorkspaceBytes); }

WB_API size_t wino_scratch_bytes(void) { return wb_caller_bytes(kScratchBytes); }

WB_API const char* wino_describe(void) { return kDescription; }

WB_API const char* wino_error_string(int code) {
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}

// Once per weight tensor: reads w, writes the transformed weights into the workspace.
WB_API int wino_weight_transform(const void* wb_w, void* wb_workspace, cudaStream_t stream) {
  WB_CHECK(wb_check_buffer(wb_workspace, kWorkspaceBytes));
  WB_CHECK(wb_configure_kernels());
  // The generated kernels take non-const pointers; they do not write their inputs.
  [[maybe_unused]] IN_T* w = static_cast<IN_T*>(const_cast<void*>(wb_w));
  [[maybe_unused]] char* wb_base = wb_layout_base(wb_workspace);
{{WORKSPACE_POINTERS}}
{{WEIGHT_TRANSFORM_BODY}}
  return cudaSuccess;
}

// Once per convolution: y = epilogue(conv(x, w)) with the weights wino_weight_transform left in
// the workspace. bias, residual and y_scale must be non-NULL exactly when the kernels read them.
WB_API int wino_forward(const void* wb_x, const void* wb_bias, const void* wb_residual,
                        const void* wb_y_scale, void* wb_y, void* wb_workspace, void* wb_scratch,
                        cudaStream_t stream) {
  WB_CHECK(wb_check_buffer(wb_workspace, kWorkspaceBytes));
  WB_CHECK(wb_check_buffer(wb_scratch, kScratchBytes));
  if ((wb_bias != nullptr) != {{EPILOGUE_BIAS}} ||
      (wb_residual != nullptr) != {{EPILOGUE_RESIDUAL}} ||
      (wb_y_scale != nullptr) != {{SCALED_OUT}}) {
    return cudaErrorInvalidValue;
  }
  WB_CHECK(wb_configure_kernels());
  [[maybe_unused]] IN_T* x = static_cast<IN_T*>(const_cast<void*>(wb_x));
  [[maybe_unused]] EPI_T* bias = static_cast<EPI_T*>(const_cast<void*>(wb_bias));
  [[maybe_unused]] EPI_T* residual = static_cast<EPI_T*>(const_cast<void*>(wb_residual));
  [[maybe_unused]] float* y_scale = static_cast<float*>(const_cast<void*>(wb_y_scale));
  [[maybe_unused]] OUT_T* y = static_cast<OUT_T*>(wb_y);
  [[maybe_unused]] char* wb_base = wb_layout_base(wb_workspace);
  [[maybe_unused]] char* wb_scratch_base = wb_layout_base(wb_scratch);
{{FORWARD_POINTERS}}
{{FORWARD_BODY}}
  return cudaSuccess;
}
