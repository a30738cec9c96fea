#include "graph_across_devices.hpp"

#include "coherent_memory.hpp"
#include "error.hpp"
#include "graph_placement.hpp"
#include "task_queue.hpp"

#include <algorithm>

namespace xpurt::core {

namespace {

// What copies cost the placement, per byte: between a device and host memory (page-locked
// PCIe 5 and the like), between peers (NVLink, a Level Zero context), between devices that
// copy through the host (both hops), and within one device's memory.
constexpr double kHostNsPerByte = 1.0 / 20;
constexpr double kPeerNsPerByte = 1.0 / 100;
constexpr double kStagedNsPerByte = 2 * kHostNsPerByte;
constexpr double kLocalNsPerByte = 1.0 / 200;

uint64_t workItems(const Command &cmd) {
  uint64_t items = 1;
  if (cmd.type == Command::Type::LaunchKernel)
    for (uint32_t d = 0; d < cmd.range.workDim; ++d) items *= cmd.range.globalSize[d];
  else
    for (uint32_t d : cmd.dims) items *= d;
  return items;
}

}  // namespace

Command commandOnDevice(const Command &cmd, Device &device) {
  if (!cmd.kernel) return cmd;
  Module &module = cmd.kernel->module();
  // runsKernelsOf speaks of devices of one backend.
  if (&module.device() == &device ||
      (&module.device().backend() == &device.backend() && device.runsKernelsOf(module.device())))
    return cmd;
  Command moved = cmd;
  moved.kernel = module.loadedOn(device)->createKernel(cmd.kernel->name());
  if (moved.type == Command::Type::LaunchKernel) {
    // The local size the first device chose must suit this one too.
    NDRange range = moved.range;
    moved.kernel->checkLaunch(*moved.args, range);
    moved.range = range;
  }
  return moved;
}

// ---- DevicesGraphExec -------------------------------------------------------------------

DevicesGraphExec::DevicesGraphExec(std::vector<Ref<Device>> devices,
                                   std::shared_ptr<const GraphProgram> program,
                                   std::vector<uint32_t> placement,
                                   std::vector<std::string> deviceKeys,
                                   std::vector<std::string> kernelKeys)
    : GraphExec(devices.front(), program),
      devices_(std::move(devices)),
      deviceKeys_(std::move(deviceKeys)),
      placement_(std::move(placement)),
      kernelKeys_(std::move(kernelKeys)) {
  for (const Ref<Device> &d : devices_) {
    QueueOptions options;
    options.profiling = true;  // every launch teaches the time model
    queues_.push_back(d->createQueue(options));
  }
  binding_ = bind(std::move(program));
}

DevicesGraphExec::~DevicesGraphExec() {
  KernelTimeModel::instance().save();
}

bool DevicesGraphExec::runsOn(const Device &device) const {
  return std::any_of(devices_.begin(), devices_.end(),
                     [&](const Ref<Device> &d) { return d.get() == &device; });
}

Device &DevicesGraphExec::deviceOfNode(uint32_t node) const {
  std::shared_ptr<const Binding> b = binding();
  return *devices_[placement_[b->program->topLevel.at(node)]];
}

std::shared_ptr<const DevicesGraphExec::Binding> DevicesGraphExec::binding() const {
  std::lock_guard lock(bindingMutex_);
  return binding_;
}

std::shared_ptr<const DevicesGraphExec::Binding> DevicesGraphExec::bind(
    std::shared_ptr<const GraphProgram> program) const {
  auto b = std::make_shared<Binding>();
  b->placement = placement_;
  b->commands.resize(program->nodes.size());
  for (size_t k = 0; k < program->nodes.size(); ++k) {
    const GraphProgram::Node &node = program->nodes[k];
    if (node.kind != GraphNode::Kind::Command) continue;
    b->commands[k] =
        std::make_shared<const Command>(commandOnDevice(*node.cmd, *devices_[placement_[k]]));
  }
  b->program = std::move(program);
  return b;
}

void DevicesGraphExec::programChanged(const GraphProgram &program) {
  std::shared_ptr<const Binding> b = bind(std::make_shared<const GraphProgram>(program));
  std::lock_guard lock(bindingMutex_);
  binding_ = std::move(b);
}

void DevicesGraphExec::checkRebound(uint32_t node, const Command &cmd) const {
  Device &device = *devices_[placement_[node]];
  CommandBuilder(Ref<Device>(&device), XPURT_ENGINE_ANY)
      .checkCommand(commandOnDevice(cmd, device), "rebinding");
}

void DevicesGraphExec::admit(const Ref<Event> &end) {
  if (inFlight_.size() == kLaunchesInFlight) {
    inFlight_.front()->wait();
    inFlight_.erase(inFlight_.begin());
  }
  inFlight_.push_back(end);
}

std::optional<DevicesGraphExec::Sample> DevicesGraphExec::sampleOf(const Binding &binding,
                                                                   uint32_t node) const {
  if (kernelKeys_[node].empty()) return std::nullopt;
  return Sample{kernelKeys_[node], deviceKeys_[binding.placement[node]],
                workItems(*binding.commands[node])};
}

// ---- placement --------------------------------------------------------------------------

Ref<GraphExec> instantiateAcrossDevices(std::shared_ptr<GraphProgram> program,
                                        std::span<const Ref<Device>> devices) {
  if (devices.empty())
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "no devices given: instantiate the graph for at least one device");
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (devices[i].get() == devices[j].get())
        fail(XPURT_ERROR_INVALID_ARGUMENT,
             "devices[{}] and devices[{}] are both {}: list each device once", j, i,
             devices[i]->label());
  const auto D = static_cast<uint32_t>(devices.size());
  placement::Problem problem;
  problem.devices = D;
  problem.places = 1;  // host memory
  for (const Ref<Device> &d : devices)
    problem.placeOfDevice.push_back(d->deviceMemoryIsHostMemory() ? 0 : problem.places++);
  if (problem.places > 64)
    fail(XPURT_ERROR_INVALID_ARGUMENT,
         "a graph can be placed on at most 63 devices with memory of "
         "their own");
  problem.nsPerByte.assign(size_t{problem.places} * problem.places, kStagedNsPerByte);
  for (uint32_t p = 0; p < problem.places; ++p) {
    problem.nsPerByte[p * problem.places + p] = 0;
    problem.nsPerByte[p] = problem.nsPerByte[p * problem.places] = p ? kHostNsPerByte : 0;
  }
  for (uint32_t a = 0; a < D; ++a)
    for (uint32_t b = 0; b < D; ++b) {
      uint32_t pa = problem.placeOfDevice[a], pb = problem.placeOfDevice[b];
      if (pa && pb && pa != pb && &devices[a]->backend() == &devices[b]->backend() &&
          devices[a]->copiesPeerWith(*devices[b]))
        problem.nsPerByte[pa * problem.places + pb] = kPeerNsPerByte;
    }

  std::vector<CoherentMemory *> data;  // index: the data id of the placement
  auto dataId = [&](CoherentMemory *m) {
    auto it = std::find(data.begin(), data.end(), m);
    if (it != data.end()) return static_cast<uint32_t>(it - data.begin());
    data.push_back(m);
    return static_cast<uint32_t>(data.size() - 1);
  };
  KernelTimeModel &model = KernelTimeModel::instance();
  std::vector<std::string> deviceKeys;
  for (const Ref<Device> &d : devices) deviceKeys.push_back(KernelTimeModel::deviceKey(*d));
  // Each kernel's key once: it hashes the kernel's module.
  std::vector<std::string> kernelKeys(program->nodes.size());
  std::vector<std::pair<const Kernel *, std::string>> keyOf;
  auto kernelKey = [&](const Kernel &kernel) {
    for (const auto &[known, key] : keyOf)
      if (known == &kernel) return key;
    return keyOf.emplace_back(&kernel, KernelTimeModel::kernelKey(kernel)).second;
  };
  std::vector<std::vector<uint32_t>> preds = program->predecessors();
  for (uint32_t k = 0; k < program->nodes.size(); ++k) {
    const GraphProgram::Node &node = program->nodes[k];
    placement::Node pn;
    pn.preds = preds[k];
    pn.runNs.assign(D, 0.0);
    std::vector<std::string> why(D);
    if (node.kind == GraphNode::Kind::Command) {
      const Command &cmd = *node.cmd;
      if (cmd.isLaunch()) kernelKeys[k] = kernelKey(*cmd.kernel);
      for (uint32_t d = 0; d < D; ++d) {
        try {
          Command here = commandOnDevice(cmd, *devices[d]);
          CommandBuilder(devices[d], XPURT_ENGINE_ANY).checkCommand(here, "");
        } catch (const Error &e) {
          pn.runNs[d] = placement::kNever;
          why[d] = e.what();
          continue;
        }
        if (cmd.isLaunch()) {
          std::optional<double> perItem = model.nsPerItem(kernelKeys[k], deviceKeys[d]);
          pn.runNs[d] =
              perItem ? *perItem * static_cast<double>(workItems(cmd)) : placement::kUnknown;
        } else if (cmd.type == Command::Type::Copy || cmd.type == Command::Type::Fill) {
          pn.runNs[d] = static_cast<double>(cmd.dst.size) * kLocalNsPerByte;
        }
      }
      cmd.forEachRef([&](const MemoryRef &r) {
        if (r.view->isCoherent())
          pn.uses.push_back({dataId(r.view->coherent()), r.offset, r.offset + r.size,
                             r.access != XPURT_ACCESS_WRITE, r.access != XPURT_ACCESS_READ});
      });
    }
    if (node.pinned) {
      auto at = std::find_if(devices.begin(), devices.end(),
                             [&](const Ref<Device> &d) { return d.get() == node.pinned.get(); });
      if (at == devices.end())
        fail(XPURT_ERROR_INVALID_ARGUMENT,
             "node {} ({}) is pinned to {}, which is not one of the {} device{} the graph is "
             "instantiated for; instantiate it for that device too, or unpin the node",
             program->name(k), program->description(k), node.pinned->label(), D, D == 1 ? "" : "s");
      auto pinned = static_cast<uint32_t>(at - devices.begin());
      if (pn.runNs[pinned] == placement::kNever)
        fail(XPURT_ERROR_INVALID_ARGUMENT, "node {} ({}) is pinned to {}, where it cannot run: {}",
             program->name(k), program->description(k), node.pinned->label(), why[pinned]);
      for (uint32_t d = 0; d < D; ++d)
        if (d != pinned) pn.runNs[d] = placement::kNever;
    }
    if (std::all_of(pn.runNs.begin(), pn.runNs.end(),
                    [](double ns) { return ns == placement::kNever; })) {
      std::string reasons;
      for (uint32_t d = 0; d < D; ++d)
        reasons += fmt::format("{}{}: {}", d ? "; " : "", devices[d]->label(), why[d]);
      fail(XPURT_ERROR_INVALID_ARGUMENT, "node {} ({}) can run on none of the graph's devices: {}",
           program->name(k), program->description(k), reasons);
    }
    problem.nodes.push_back(std::move(pn));
  }
  // Where each COHERENT view's bytes are up to date now.
  for (uint32_t id = 0; id < data.size(); ++id) {
    CoherentMemory &m = *data[id];
    std::lock_guard lock(m.mutex());
    for (size_t place = 0; place < m.placeCount(); ++place) {
      uint32_t ours = 0;
      if (place != CoherentMemory::kHost)
        for (uint32_t d = 0; d < D; ++d)
          if (devices[d].get() == &m.deviceAt(place)) ours = problem.placeOfDevice[d];
      for (auto [b, e] : m.upToDate(place).ranges())
        problem.initial.push_back({id, b, e, uint64_t{1} << ours});
    }
  }
  std::vector<uint32_t> placed = placement::place(problem);
  return makeRef<DevicesGraphExec>(std::vector<Ref<Device>>(devices.begin(), devices.end()),
                                   std::move(program), std::move(placed), std::move(deviceKeys),
                                   std::move(kernelKeys));
}

}  // namespace xpurt::core
