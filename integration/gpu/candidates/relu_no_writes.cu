// Wrong: writes nothing. On a launch whose output buffer already holds the
// right values (the program's second launch), only poisoning the output
// shows it.
__global__ void
relu_kernel(const float *x, float *y, size_t n)
{
	(void)x;
	(void)y;
	(void)n;
}
