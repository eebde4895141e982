#define K __global__ void m(void) { }
/* __global__ void c(void) { } */
__global__ void decl(int n);
template <int N> __global__ void __launch_bounds__(256, 2)
tk(const float *a, float *b, int n = (1 + 2))
#if defined(__CUDA_ARCH__)
{ b[0] = a[0] * N; asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#else
{}
#endif
static const char *s = R"x(__global__ void q() {)x";
extern "C" __global__ void plain(float *x) { x[threadIdx.x] = 1'000.5e+3f; }
