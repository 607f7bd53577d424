// Channels 4q .. 4q + 3 of a staged pixel as two half2 (.x: 4q, 4q + 1): fp16 one 8-byte load;
// int8 one 4-byte load, exact but biased: byte b ^ 0x80 (b + 128) under 1024's exponent byte
// (0x64) is the half kInputBias + b (the transform's differences cancel the bias). Filled into
// the lane and F(2, 3) templates (placeholder LOAD_CHANNELS), which define XT and kInt8In.
__device__ __forceinline__ uint2 load_channels(const XT* at) {
  if constexpr (kInt8In) {
    const uint32_t biased = *reinterpret_cast<const uint32_t*>(at) ^ 0x80808080u;
    return make_uint2(__byte_perm(biased, 0x64646464u, 0x5140),
                      __byte_perm(biased, 0x64646464u, 0x5342));
  } else {
    return *reinterpret_cast<const uint2*>(at);
  }
}
