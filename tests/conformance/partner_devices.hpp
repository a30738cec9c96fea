// What the suites that pair each device with every other share (coherent_view_test.cpp,
// graph_across_devices_test.cpp): the other devices of the suite as partners, a COHERENT view's
// values on the host, and the check of a refusal.
#pragma once

#include "device_param.hpp"

#include <string>
#include <vector>

namespace xpurt::test {

class PartnerDeviceTest : public DeviceTest {
 protected:
  Module spirv{device, "xpurt_test_spirv"};
  Kernel addInt{spirv, "add_int"};

  // Every other device of the suite, with a queue and its own add_int.
  struct Partner {
    std::string name;
    Device device;
    TaskQueue queue;
    Module module;
    Kernel addInt;
  };
  std::vector<Partner> partners() const {
    std::vector<Partner> out;
    for (const DeviceParam &p : conformanceDevices()) {
      if (p.name == GetParam().name) continue;
      Device d(p.type, p.index, p.flags);
      Module m(d, "xpurt_test_spirv");
      Kernel k(m, "add_int");
      out.push_back({p.name, d, TaskQueue(d), std::move(m), std::move(k)});
    }
    return out;
  }
  // The host memory of a view, once q has made it up to date.
  static std::vector<int32_t> hostValues(TaskQueue &q, const CoherentArray<int32_t> &a) {
    q.copyToHost(a);
    q.sync();
    return std::vector<int32_t>(a.hostPtr(), a.hostPtr() + a.size());
  }
};

// The call throws an Error of that code whose message holds the phrase.
template <class Call>
void expectRefused(Call &&call, XpurtResult code, const char *phrase) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected a message with: " << phrase;
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
  }
}

}  // namespace xpurt::test
