// The device lists the multi-device samples take on their command line.
#pragma once

#include <xpurt/xpurt.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace samples {

// TYPE:INDEX[,TYPE:INDEX...] with TYPE gpu or cpu, as xpurt-info lists the devices.
inline std::vector<xpurt::Device> parseDevices(const char *text) {
  std::vector<xpurt::Device> devices;
  std::string list = text;
  for (size_t at = 0; at <= list.size();) {
    size_t comma = std::min(list.find(',', at), list.size());
    std::string item = list.substr(at, comma - at);
    size_t colon = item.find(':');
    std::string type = item.substr(0, colon);
    if (colon == std::string::npos || (type != "gpu" && type != "cpu"))
      throw std::runtime_error("device '" + item + "': give TYPE:INDEX with TYPE gpu or cpu");
    auto t = type == "gpu" ? xpurt::DeviceType::GPU : xpurt::DeviceType::CPU;
    devices.emplace_back(t, static_cast<uint32_t>(std::stoul(item.substr(colon + 1))));
    at = comma + 1;
  }
  return devices;
}

// Every device of a type: the GPUs if there are any, else the CPU devices.
inline std::vector<xpurt::Device> everyDeviceOfTheFirstType() {
  std::vector<xpurt::Device> devices;
  auto type = xpurt::Device::count(xpurt::DeviceType::GPU) > 0 ? xpurt::DeviceType::GPU
                                                               : xpurt::DeviceType::CPU;
  for (uint32_t i = 0, n = xpurt::Device::count(type); i < n; ++i) devices.emplace_back(type, i);
  return devices;
}

}  // namespace samples
