/* Parameters of the simple kernel, shared by the kernel and the host program. */
#pragma once

struct SimpleParams {
  float *vin;
  float *vout;
  int count;
};
