// clang's full OpenCL C builtin header: the list of builtins the generated tests call.
#include <opencl-c.h>
