// Standalone benchmark and correctness check for one generated 3x3 convolution.
// Rendered by wino_tvm/harness.py; build: nvcc -std=c++17 -O3 -arch=sm_XX program.cu
// Conv: x[N,H,W,C] (NHWC) * w[3,3,C,K] (HWIO) -> y[N,H,W,K], stride 1, zero padding 1, then
// the fused epilogue y = relu(conv + bias[k] + residual[n,h,w,k]) with the parts it names; for
// int8 inputs an fp16 or int8 y is that divided by y_scale (int8: rounded, saturated to +-127).
// Usage: wino_bench [--seed S] [--checks K] [--warmup W] [--iters I] [--no-time]
// Progress goes to stderr; the last stdout line is one JSON record.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// ---- generated kernels (opaque) -------------------------------------------------------------
{{KERNELS}}
// ---- end of generated kernels ---------------------------------------------------------------

// The generated preamble may #define short names (uint, uchar, ...), so the code below spells
// its types out and prefixes its names with wb_/k.
typedef {{IN_T}} IN_T;
typedef {{OUT_T}} OUT_T;
typedef {{EPI_T}} EPI_T;  // bias and residual

static constexpr long long kN = {{N}};
static constexpr long long kH = {{H}};
static constexpr long long kW = {{W}};
static constexpr long long kC = {{C}};
static constexpr long long kK = {{K}};
static constexpr long long kXCount = kN * kH * kW * kC;
static constexpr long long kWCount = 9 * kC * kK;
static constexpr long long kYCount = kN * kH * kW * kK;
static constexpr int kM = {{M}};
static constexpr double kTolerance = {{TOLERANCE}};
static constexpr bool kBias = {{EPILOGUE_BIAS}};
static constexpr bool kResidual = {{EPILOGUE_RESIDUAL}};
static constexpr bool kRelu = {{EPILOGUE_RELU}};
// A scaled y: forward reads y_scale, which the check sets from the reference (its absmax maps
// to 127, as a calibration would). An int8 y starts as kQuantPoison, a value the kernels never
// write; a floating one as NaN.
static constexpr bool kScaledOut = {{SCALED_OUT}};
static constexpr int kQuantPoison = {{QUANT_POISON}};
// bias and residual are drawn from [-kEpilogueScale, kEpilogueScale]: the size of the
// convolution's outputs, so that a dropped epilogue term fails the check by far.
static constexpr float kEpilogueScale = {{EPILOGUE_SCALE}};
// JSON-encoded strings for the record.
static const char* const kDtypeJson = {{DTYPE_JSON}};
static const char* const kOutJson = {{OUT_JSON}};
static const char* const kFusionJson = {{FUSION_JSON}};
static const char* const kConfigJson = {{CONFIG_JSON}};
static const char* const kCommitJson = {{COMMIT_JSON}};
static const char* const kEpilogueJson = {{EPILOGUE_JSON}};

static void wb_check(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line, cudaGetErrorName(err),
            cudaGetErrorString(err), what);
    exit(3);
  }
}
#define WB_CHECK(call) wb_check((call), #call, __FILE__, __LINE__)
#define WB_CHECK_LAUNCH(kernel) wb_check(cudaGetLastError(), "launch of " kernel, __FILE__, __LINE__)

// ---- workspaces -----------------------------------------------------------------------------
{{WORKSPACE_DECLS}}

// Workspaces start poisoned (0xFF bytes: NaN for floating types), so that a kernel reading
// an element no kernel wrote shows up in the check.
static void wb_alloc_workspaces() {
{{WORKSPACE_ALLOC}}
}

static void wb_free_workspaces() {
{{WORKSPACE_FREE}}
}

// ---- generated launch sequences -------------------------------------------------------------
// Raises the dynamic shared memory limit of kernels launched with more than 48 KB.
static void wb_configure_kernels() {
{{KERNEL_ATTRS}}
}

// The launch lists decide which buffers each function uses, hence [[maybe_unused]].
// Once per weight tensor.
static void weight_transform([[maybe_unused]] IN_T* w, [[maybe_unused]] cudaStream_t stream) {
{{WEIGHT_TRANSFORM_BODY}}
}

// Once per convolution call; this is what is timed.
static void forward([[maybe_unused]] IN_T* x, [[maybe_unused]] IN_T* w,
                    [[maybe_unused]] EPI_T* bias, [[maybe_unused]] EPI_T* residual,
                    [[maybe_unused]] float* y_scale, [[maybe_unused]] OUT_T* y,
                    cudaStream_t stream) {
{{FORWARD_BODY}}
}

// ---- data -----------------------------------------------------------------------------------
__host__ __device__ inline unsigned long long wb_splitmix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1] from the top 24 bits.
__device__ inline float wb_uniform(unsigned long long bits) {
  return 2.0f * ((float)(bits >> 40) * 0x1p-24f) - 1.0f;
}

// Uniform in [-scale, scale]: x and w at scale 1, the epilogue's bias and residual at
// kEpilogueScale (their type EPI_T: half or float).
__device__ inline void wb_set_random(half* p, unsigned long long bits, float scale) {
  *p = __float2half_rn(scale * wb_uniform(bits));
}
__device__ inline void wb_set_random(float* p, unsigned long long bits, float scale) {
  *p = scale * wb_uniform(bits);
}

// Uniform integer in [-127, 127] (int8 x and w come at scale 1 only).
__device__ inline void wb_set_random(signed char* p, unsigned long long bits, float) {
  *p = (signed char)((int)(bits % 255ull) - 127);
}

// Counter-based: element i gets splitmix64(key + i), so any launch shape gives the same data.
template <typename T>
__global__ void wb_fill_random(T* p, long long n, unsigned long long key, float scale) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    wb_set_random(p + i, wb_splitmix64(key + (unsigned long long)i), scale);
  }
}

static int wb_blocks(long long n) { return (int)std::min<long long>((n + 255) / 256, 8192); }

// Distinct salts give each tensor of one seed its own stream of values.
template <typename T>
static void wb_fill(T* p, long long n, unsigned long long seed, unsigned long long salt,
                    cudaStream_t stream, float scale = 1.0f) {
  const unsigned long long key = wb_splitmix64(wb_splitmix64(seed) ^ salt);
  wb_fill_random<<<wb_blocks(n), 256, 0, stream>>>(p, n, key, scale);
  WB_CHECK_LAUNCH("wb_fill_random");
}

// ---- reference ------------------------------------------------------------------------------
__device__ inline double wb_to_double(half v) { return (double)__half2float(v); }
__device__ inline double wb_to_double(signed char v) { return (double)v; }
__device__ inline double wb_to_double(float v) { return (double)v; }

// Direct convolution in float64 (exact for int8 inputs, and for fp16 inputs the error is far
// below any kernel's), then the epilogue in float64.
__global__ void wb_reference_conv(const IN_T* __restrict__ x, const IN_T* __restrict__ w,
                                  const EPI_T* __restrict__ bias,
                                  const EPI_T* __restrict__ residual, double* __restrict__ ref) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < kYCount;
       idx += stride) {
    // k is fastest across threads: w loads coalesce and x loads broadcast.
    const long long k = idx % kK;
    long long t = idx / kK;
    const long long j = t % kW;
    t /= kW;
    const long long i = t % kH;
    const long long n = t / kH;
    double acc = 0.0;
    for (int r = 0; r < 3; ++r) {
      const long long ii = i + r - 1;
      if (ii < 0 || ii >= kH) continue;
      for (int s = 0; s < 3; ++s) {
        const long long jj = j + s - 1;
        if (jj < 0 || jj >= kW) continue;
        const IN_T* xp = x + ((n * kH + ii) * kW + jj) * kC;
        const IN_T* wp = w + (r * 3 + s) * kC * kK + k;
        for (long long c = 0; c < kC; ++c) acc += wb_to_double(xp[c]) * wb_to_double(wp[c * kK]);
      }
    }
    if (kBias) acc += wb_to_double(bias[k]);
    if (kResidual) acc += wb_to_double(residual[idx]);
    if (kRelu) acc = acc > 0.0 ? acc : 0.0;
    ref[idx] = acc;
  }
}

// y in the reference's units (times y_scale, 1 when unscaled), int8's poison as NaN.
__device__ inline double wb_output_value(half v, double y_scale) {
  return wb_to_double(v) * y_scale;
}
__device__ inline double wb_output_value(float v, double y_scale) {
  return wb_to_double(v) * y_scale;
}
__device__ inline double wb_output_value(signed char v, double y_scale) {
  return v == kQuantPoison ? NAN : (double)v * y_scale;
}

__global__ void wb_output_to_double(const OUT_T* __restrict__ y, double y_scale,
                                    double* __restrict__ out) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < kYCount; i += stride) {
    out[i] = wb_output_value(y[i], y_scale);
  }
}

struct WbErrors {
  double rel_l2 = 0.0;
  double max_abs = 0.0;
  long long nonfinite = 0;
};

// Non-finite outputs are counted apart; the error norms cover the finite ones, so a few
// unwritten elements do not hide how close the rest is.
static WbErrors wb_compare(const std::vector<double>& y, const std::vector<double>& ref) {
  WbErrors e;
  double err2 = 0.0, ref2 = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    ref2 += ref[i] * ref[i];
    if (!std::isfinite(y[i])) {
      ++e.nonfinite;
      continue;
    }
    const double d = y[i] - ref[i];
    err2 += d * d;
    e.max_abs = std::max(e.max_abs, std::fabs(d));
  }
  e.rel_l2 = ref2 > 0.0 ? std::sqrt(err2 / ref2) : (err2 > 0.0 ? INFINITY : 0.0);
  return e;
}

// ---- command line and record ----------------------------------------------------------------
struct WbOptions {
  unsigned long long seed = 1;
  long long checks = 1;
  long long warmup = 20;
  long long iters = 100;
  bool time = true;
};

static void wb_usage_error(const char* msg, const char* arg) {
  fprintf(stderr, "error: %s%s\nusage: wino_bench [--seed S] [--checks K] [--warmup W] "
          "[--iters I] [--no-time]\n", msg, arg);
  exit(2);
}

static long long wb_parse_int(int argc, char** argv, int* i, long long min_value) {
  if (*i + 1 >= argc) wb_usage_error("missing value for ", argv[*i]);
  const char* text = argv[++*i];
  char* end = nullptr;
  const long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < min_value) wb_usage_error("bad value: ", text);
  return v;
}

static WbOptions wb_parse_options(int argc, char** argv) {
  WbOptions o;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seed")) o.seed = (unsigned long long)wb_parse_int(argc, argv, &i, 0);
    else if (!strcmp(argv[i], "--checks")) o.checks = wb_parse_int(argc, argv, &i, 1);
    else if (!strcmp(argv[i], "--warmup")) o.warmup = wb_parse_int(argc, argv, &i, 0);
    else if (!strcmp(argv[i], "--iters")) o.iters = wb_parse_int(argc, argv, &i, 1);
    else if (!strcmp(argv[i], "--no-time")) o.time = false;
    else wb_usage_error("unknown argument: ", argv[i]);
  }
  return o;
}

static std::string wb_json_string(const char* s) {
  std::string out = "\"";
  for (; *s; ++s) {
    const unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += (char)ch;
    } else if (ch < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += (char)ch;
    }
  }
  return out + "\"";
}

// JSON has no NaN or Infinity: those become null.
static std::string wb_json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// ---- main -----------------------------------------------------------------------------------
int main(int argc, char** argv) {
  const WbOptions opt = wb_parse_options(argc, argv);

  WB_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  WB_CHECK(cudaGetDeviceProperties(&prop, 0));
  fprintf(stderr, "device: %s (sm_%d%d), workload N=%lld H=%lld W=%lld C=%lld K=%lld, %s m=%d\n",
          prop.name, prop.major, prop.minor, kN, kH, kW, kC, kK, kDtypeJson, kM);

  cudaStream_t stream;
  WB_CHECK(cudaStreamCreate(&stream));
  wb_configure_kernels();
  wb_alloc_workspaces();

  const size_t x_bytes = sizeof(IN_T) * (size_t)kXCount;
  const size_t y_bytes = sizeof(OUT_T) * (size_t)kYCount;
  // The residual has y's shape; epilogue inputs and y_scale are allocated only when used.
  const size_t r_bytes = kResidual ? sizeof(EPI_T) * (size_t)kYCount : 0;
  IN_T* x = nullptr;
  IN_T* w = nullptr;
  OUT_T* y = nullptr;
  EPI_T* bias = nullptr;
  EPI_T* residual = nullptr;
  float* y_scale = nullptr;
  WB_CHECK(cudaMalloc(&x, x_bytes));
  WB_CHECK(cudaMalloc(&w, sizeof(IN_T) * (size_t)kWCount));
  WB_CHECK(cudaMalloc(&y, y_bytes));
  if (kBias) WB_CHECK(cudaMalloc(&bias, sizeof(EPI_T) * (size_t)kK));
  if (kResidual) WB_CHECK(cudaMalloc(&residual, r_bytes));
  if (kScaledOut) WB_CHECK(cudaMalloc(&y_scale, sizeof(float)));

  // ---- correctness: fresh x and w per check, y poisoned so unwritten outputs show ----------
  double* ref_dev = nullptr;
  double* y_dev = nullptr;
  WB_CHECK(cudaMalloc(&ref_dev, sizeof(double) * (size_t)kYCount));
  WB_CHECK(cudaMalloc(&y_dev, sizeof(double) * (size_t)kYCount));
  std::vector<double> ref_host((size_t)kYCount), y_host((size_t)kYCount);
  WbErrors worst;
  bool correct = true;
  for (long long check = 0; check < opt.checks; ++check) {
    const unsigned long long seed = opt.seed + (unsigned long long)check;
    wb_fill(x, kXCount, seed, 1, stream);
    wb_fill(w, kWCount, seed, 2, stream);
    if (kBias) wb_fill(bias, kK, seed, 3, stream, kEpilogueScale);
    if (kResidual) wb_fill(residual, kYCount, seed, 4, stream, kEpilogueScale);
    wb_reference_conv<<<wb_blocks(kYCount), 256, 0, stream>>>(x, w, bias, residual, ref_dev);
    WB_CHECK_LAUNCH("wb_reference_conv");
    WB_CHECK(cudaMemcpyAsync(ref_host.data(), ref_dev, sizeof(double) * ref_host.size(),
                             cudaMemcpyDeviceToHost, stream));
    WB_CHECK(cudaStreamSynchronize(stream));
    float scale = 1.0f;
    if (kScaledOut) {
      double absmax = 0.0;
      for (double v : ref_host) absmax = std::max(absmax, std::fabs(v));
      scale = absmax > 0.0 ? (float)(absmax / 127.0) : 1.0f;
      WB_CHECK(cudaMemcpyAsync(y_scale, &scale, sizeof(float), cudaMemcpyHostToDevice, stream));
    }
    const bool int8_y = sizeof(OUT_T) == 1;
    WB_CHECK(cudaMemsetAsync(y, int8_y ? kQuantPoison : 0xFF, y_bytes, stream));
    weight_transform(w, stream);
    forward(x, w, bias, residual, y_scale, y, stream);
    WB_CHECK(cudaDeviceSynchronize());

    wb_output_to_double<<<wb_blocks(kYCount), 256, 0, stream>>>(y, (double)scale, y_dev);
    WB_CHECK_LAUNCH("wb_output_to_double");
    WB_CHECK(cudaMemcpyAsync(y_host.data(), y_dev, sizeof(double) * y_host.size(),
                             cudaMemcpyDeviceToHost, stream));
    WB_CHECK(cudaStreamSynchronize(stream));

    const WbErrors e = wb_compare(y_host, ref_host);
    const bool ok = e.nonfinite == 0 && e.rel_l2 <= kTolerance;
    correct = correct && ok;
    worst.rel_l2 = std::max(worst.rel_l2, e.rel_l2);
    worst.max_abs = std::max(worst.max_abs, e.max_abs);
    worst.nonfinite = std::max(worst.nonfinite, e.nonfinite);
    fprintf(stderr, "check %lld/%lld seed=%llu: rel_l2_err=%.3e max_abs_err=%.3e nonfinite=%lld %s\n",
            check + 1, opt.checks, seed, e.rel_l2, e.max_abs, e.nonfinite, ok ? "ok" : "FAIL");
  }
  WB_CHECK(cudaFree(ref_dev));
  WB_CHECK(cudaFree(y_dev));

  // ---- timing: rotate through R copies of x, y (and residual) so they do not sit in L2 ----
  double median_us = NAN, min_us = NAN, mean_us = NAN;
  long long rotate = 0, timed_iters = 0;
  if (opt.time) {
    const size_t pair_bytes = x_bytes + y_bytes + r_bytes;
    rotate = std::clamp<long long>(
        ((long long)2 * prop.l2CacheSize + (long long)pair_bytes - 1) / (long long)pair_bytes, 1, 64);
    size_t free_bytes = 0, total_bytes = 0;
    WB_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Copy 0 is the x/y already allocated; leave a tenth of free memory for the runtime.
    rotate = std::min(rotate, 1 + (long long)(free_bytes / 10 * 9 / pair_bytes));
    std::vector<IN_T*> xs((size_t)rotate, x);
    std::vector<OUT_T*> ys((size_t)rotate, y);
    std::vector<EPI_T*> rs((size_t)rotate, residual);
    for (long long r = 1; r < rotate; ++r) {
      WB_CHECK(cudaMalloc(&xs[r], x_bytes));
      WB_CHECK(cudaMalloc(&ys[r], y_bytes));
      wb_fill(xs[r], kXCount, opt.seed, 100 + (unsigned long long)r, stream);
      if (kResidual) {
        WB_CHECK(cudaMalloc(&rs[r], r_bytes));
        wb_fill(rs[r], kYCount, opt.seed, 200 + (unsigned long long)r, stream, kEpilogueScale);
      }
    }
    fprintf(stderr, "timing: rotate=%lld warmup=%lld iters=%lld\n", rotate, opt.warmup, opt.iters);

    weight_transform(w, stream);
    for (long long i = 0; i < opt.warmup; ++i) {
      forward(xs[i % rotate], w, bias, rs[i % rotate], y_scale, ys[i % rotate], stream);
    }
    std::vector<cudaEvent_t> starts((size_t)opt.iters), stops((size_t)opt.iters);
    for (long long i = 0; i < opt.iters; ++i) {
      WB_CHECK(cudaEventCreate(&starts[i]));
      WB_CHECK(cudaEventCreate(&stops[i]));
    }
    for (long long i = 0; i < opt.iters; ++i) {
      WB_CHECK(cudaEventRecord(starts[i], stream));
      forward(xs[i % rotate], w, bias, rs[i % rotate], y_scale, ys[i % rotate], stream);
      WB_CHECK(cudaEventRecord(stops[i], stream));
    }
    WB_CHECK(cudaDeviceSynchronize());

    std::vector<double> us((size_t)opt.iters);
    for (long long i = 0; i < opt.iters; ++i) {
      float ms = 0.0f;
      WB_CHECK(cudaEventElapsedTime(&ms, starts[i], stops[i]));
      us[i] = 1000.0 * ms;
      WB_CHECK(cudaEventDestroy(starts[i]));
      WB_CHECK(cudaEventDestroy(stops[i]));
    }
    std::sort(us.begin(), us.end());
    const size_t mid = us.size() / 2;
    median_us = us.size() % 2 ? us[mid] : 0.5 * (us[mid - 1] + us[mid]);
    min_us = us.front();
    double sum = 0.0;
    for (double v : us) sum += v;
    mean_us = sum / (double)us.size();
    timed_iters = opt.iters;
    for (long long r = 1; r < rotate; ++r) {
      WB_CHECK(cudaFree(xs[r]));
      WB_CHECK(cudaFree(ys[r]));
      if (kResidual) WB_CHECK(cudaFree(rs[r]));
    }
    fprintf(stderr, "forward: median %.2f us, min %.2f us, mean %.2f us\n", median_us, min_us,
            mean_us);
  }
  // Direct-convolution FLOPs, so that Winograd variants compare on the same scale.
  const double flops = 2.0 * (double)kN * kH * kW * kC * kK * 9.0;
  const double tflops = opt.time ? flops / (median_us * 1e-6) / 1e12 : NAN;

  WB_CHECK(cudaFree(x));
  WB_CHECK(cudaFree(w));
  WB_CHECK(cudaFree(y));
  if (kBias) WB_CHECK(cudaFree(bias));
  if (kResidual) WB_CHECK(cudaFree(residual));
  if (kScaledOut) WB_CHECK(cudaFree(y_scale));
  wb_free_workspaces();
  WB_CHECK(cudaStreamDestroy(stream));

  printf("{\"device\": %s, \"sm\": \"sm_%d%d\", "
         "\"workload\": {\"N\": %lld, \"H\": %lld, \"W\": %lld, \"C\": %lld, \"K\": %lld}, "
         "\"dtype\": %s, \"out\": %s, \"m\": %d, \"fusion\": %s, \"config\": %s, \"epilogue\": %s, "
         "\"median_us\": %s, \"min_us\": %s, \"mean_us\": %s, \"iters\": %lld, \"rotate\": %s, "
         "\"tflops\": %s, \"rel_l2_err\": %s, \"max_abs_err\": %s, \"nonfinite\": %lld, "
         "\"tolerance\": %s, \"checks\": %lld, \"seed\": %llu, \"correct\": %s, \"commit\": %s}\n",
         wb_json_string(prop.name).c_str(), prop.major, prop.minor, kN, kH, kW, kC, kK,
         kDtypeJson, kOutJson, kM, kFusionJson, kConfigJson, kEpilogueJson, wb_json_number(median_us).c_str(),
         wb_json_number(min_us).c_str(), wb_json_number(mean_us).c_str(), timed_iters,
         opt.time ? std::to_string(rotate).c_str() : "null", wb_json_number(tflops).c_str(),
         wb_json_number(worst.rel_l2).c_str(), wb_json_number(worst.max_abs).c_str(),
         worst.nonfinite, wb_json_number(kTolerance).c_str(), opt.checks, opt.seed,
         correct ? "true" : "false", kCommitJson);
  return 0;
}
