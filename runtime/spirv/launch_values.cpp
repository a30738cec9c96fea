#include "launch_values.hpp"

#include "core/error.hpp"
#include "spirv_rewriter.hpp"

#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace xpurt::spirv {
namespace {

enum BuiltIn : uint32_t {
  kNumWorkgroups = 24,
  kWorkgroupId = 26,
  kLocalInvocationId = 27,
  kGlobalInvocationId = 28,
  kWorkDim = 30,
  kGlobalSize = 31,
  kEnqueuedWorkgroupSize = 32,
  kGlobalOffset = 33,
  kGlobalLinearId = 34
};
constexpr uint32_t kDecorationLinkageAttributes = 41, kCapabilityVector16 = 7,
                   kCapabilityInt64 = 11, kExecutionModelKernel = 6, kVersion1_4 = 0x00010400;

// The built-ins the launch values answer, by name; nullptr for the others.
const char *answeredByLaunchValues(uint32_t builtIn) {
  switch (builtIn) {
    case kNumWorkgroups:
      return "NumWorkgroups";
    case kWorkgroupId:
      return "WorkgroupId";
    case kGlobalInvocationId:
      return "GlobalInvocationId";
    case kWorkDim:
      return "WorkDim";
    case kGlobalSize:
      return "GlobalSize";
    case kEnqueuedWorkgroupSize:
      return "EnqueuedWorkgroupSize";
    case kGlobalOffset:
      return "GlobalOffset";
    case kGlobalLinearId:
      return "GlobalLinearId";
    default:
      return nullptr;
  }
}

class LaunchValueRewrite {
 public:
  LaunchValueRewrite(Rewriter &r, std::map<uint32_t, uint32_t> builtInOf, std::string name)
      : r_(r), builtInOf_(std::move(builtInOf)), name_(std::move(name)) {
    u32_ = r_.intType(32);
    u64_ = r_.intType(64);
    v3_ = r_.vectorType(u64_, 3);
    v16_ = r_.vectorType(u64_, 16);
    r_.requireCapability(kCapabilityInt64);
    r_.requireCapability(kCapabilityVector16);
    // An array of scalars, not the ulong16: a vector that wide asks for 128-byte alignment,
    // which a driver's __local layout need not give.
    uint32_t array = r_.global(op::TypeArray, 0, {u64_, r_.constant(u32_, kLaunchValueCount)});
    launch_ =
        r_.global(op::Variable, r_.pointerType(kStorageWorkgroup, array), {kStorageWorkgroup});
    element_ = r_.pointerType(kStorageWorkgroup, u64_);
    for (auto [variable, builtIn] : builtInOf_)
      if (builtIn == kWorkgroupId || builtIn == kLocalInvocationId) device_[builtIn] = variable;
  }

  // In the wrapper: stores the launch-value parameter's components.
  std::vector<Instruction> storeLaunchValues(Rewriter &r, uint32_t parameter) {
    std::vector<Instruction> code;
    for (uint32_t k = 0; k < kLaunchValueCount; ++k) {
      uint32_t value = r.newId(), at = r.newId();
      code.push_back(Rewriter::make(op::CompositeExtract, u64_, value, {parameter, k}));
      code.push_back(
          Rewriter::make(op::InBoundsAccessChain, element_, at, {launch_, r.constant(u32_, k)}));
      code.push_back(Rewriter::make(op::Store, 0, 0, {at, value}));
    }
    return code;
  }

  uint32_t launchVariable() const { return launch_; }
  uint32_t launchType() const { return v16_; }
  size_t rewritten() const { return rewritten_; }

  // Rewrites `i` if it reaches a built-in the launch values answer; false keeps it as it is.
  bool rewrite(const Instruction &i) {
    const std::vector<uint32_t> &w = i.words;
    auto answered = [&](uint32_t id) {
      auto it = builtInOf_.find(id);
      return it != builtInOf_.end() && answeredByLaunchValues(it->second) != nullptr;
    };
    if (i.opcode == op::Load && answered(w[3])) {
      finish(value(builtInOf_.at(w[3])), i);
      return true;
    }
    if ((i.opcode == op::AccessChain || i.opcode == op::InBoundsAccessChain) && answered(w[3]) &&
        w.size() == 5) {
      chains_[i.result] = {w[3], w[4]};
      return true;
    }
    if ((i.opcode == op::PtrAccessChain || i.opcode == op::InBoundsPtrAccessChain) &&
        answered(w[3]) && w.size() <= 6 && r_.constantValue(w[4]) == uint64_t{0}) {
      chains_[i.result] = {w[3], w.size() == 6 ? w[5] : 0};
      return true;
    }
    if (i.opcode == op::Load && chains_.count(w[3])) {
      auto [variable, index] = chains_.at(w[3]);
      uint32_t v = value(builtInOf_.at(variable));
      if (index) v = r_.emit(op::VectorExtractDynamic, u64_, {v, index});
      finish(v, i);
      return true;
    }
    for (uint16_t at : i.idOperands)
      if (answered(w[at]) || chains_.count(w[at])) {
        uint32_t variable = answered(w[at]) ? w[at] : chains_.at(w[at]).first;
        core::fail(XPURT_ERROR_UNSUPPORTED,
                   "module '{}' reaches the built-in {} other than by loading it (instruction "
                   "{}), so the runtime cannot give its kernels a partial last work-group or "
                   "a global offset on this device: launch whole work-groups without an offset",
                   name_, answeredByLaunchValues(builtInOf_.at(variable)), i.opcode);
      }
    return false;
  }

 private:
  // The built-in's value: a 3-vector of ulong, or a ulong (WorkDim, GlobalLinearId).
  uint32_t value(uint32_t builtIn) {
    ++rewritten_;
    auto component = [&](uint32_t k) {
      uint32_t at = r_.emit(op::InBoundsAccessChain, element_, {launch_, r_.constant(u32_, k)});
      return r_.emit(op::Load, u64_, {at});
    };
    auto field = [&](uint32_t first) {
      uint32_t v = r_.undefinedOf(v3_);
      for (uint32_t d = 0; d < 3; ++d)
        v = r_.emit(op::CompositeInsert, v3_, {component(first + d), v, d});
      return v;
    };
    auto groupId = [&] {
      return r_.emit(op::IAdd, v3_, {device(kWorkgroupId), field(kLaunchValueGroupBase)});
    };
    auto globalId = [&] {
      uint32_t start = r_.emit(op::IMul, v3_, {groupId(), field(kLaunchValueEnqueuedLocalSize)});
      uint32_t local = r_.emit(op::IAdd, v3_, {start, device(kLocalInvocationId)});
      return r_.emit(op::IAdd, v3_, {local, field(kLaunchValueGlobalOffset)});
    };
    switch (builtIn) {
      case kWorkgroupId:
        return groupId();
      case kGlobalInvocationId:
        return globalId();
      case kNumWorkgroups:
        return field(kLaunchValueNumGroups);
      case kGlobalSize:
        return field(kLaunchValueGlobalSize);
      case kEnqueuedWorkgroupSize:
        return field(kLaunchValueEnqueuedLocalSize);
      case kGlobalOffset:
        return field(kLaunchValueGlobalOffset);
      case kWorkDim:
        return component(kLaunchValueWorkDim);
      default: {  // kGlobalLinearId: (z * size y + y) * size x + x, ids less the offset
        uint32_t id = r_.emit(op::ISub, v3_, {globalId(), field(kLaunchValueGlobalOffset)});
        uint32_t size = field(kLaunchValueGlobalSize);
        auto at = [&](uint32_t vector, uint32_t d) {
          return r_.emit(op::CompositeExtract, u64_, {vector, d});
        };
        uint32_t linear = at(id, 2);
        for (uint32_t d : {1u, 0u})
          linear =
              r_.emit(op::IAdd, u64_, {r_.emit(op::IMul, u64_, {linear, at(size, d)}), at(id, d)});
        return linear;
      }
    }
  }

  // The device's own value of WorkgroupId or LocalInvocationId as a 3-vector of ulong, from
  // the module's variable or one declared for it.
  uint32_t device(uint32_t builtIn) {
    uint32_t &variable = device_[builtIn];
    if (!variable) {
      variable = r_.global(op::Variable, r_.pointerType(kStorageInput, v3_), {kStorageInput});
      r_.addDecoration(Rewriter::make(op::Decorate, 0, 0, {variable, kDecorationBuiltIn, builtIn}));
    }
    r_.addInterface(variable);
    uint32_t type = r_.pointee(r_.typeOf(variable));
    uint32_t v = r_.emit(op::Load, type, {variable});
    return type == v3_ ? v : r_.emit(op::UConvert, v3_, {v});
  }

  // The loaded value as `load`'s type and result.
  void finish(uint32_t v, const Instruction &load) {
    uint32_t from = r_.typeOf(v);
    if (from == load.type) {
      r_.emit(op::CopyObject, load.type, {v}, load.result);
      return;
    }
    auto to = r_.integerComponents(load.type);
    bool sameWidth = to && r_.widthOf(to->first) == 64;
    r_.emit(sameWidth ? op::Bitcast : op::UConvert, load.type, {v}, load.result);
  }

  Rewriter &r_;
  std::map<uint32_t, uint32_t> builtInOf_;  // Input variable -> its BuiltIn
  std::string name_;
  uint32_t u32_ = 0, u64_ = 0, v3_ = 0, v16_ = 0, launch_ = 0, element_ = 0;
  std::map<uint32_t, uint32_t> device_;                       // built-in -> variable
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> chains_;  // chain -> (variable, index or 0)
  size_t rewritten_ = 0;
};

// Function `f`'s result type and its parameters' ids and types, in order.
struct Signature {
  uint32_t result = 0;
  std::vector<std::pair<uint32_t, uint32_t>> params;  // (id, type)
};
Signature signatureOf(const std::vector<Instruction> &all, uint32_t f) {
  Signature s;
  for (size_t k = 0; k < all.size(); ++k) {
    if (all[k].opcode != op::Function || all[k].result != f) continue;
    s.result = all[k].type;
    for (size_t p = k + 1; p < all.size() && all[p].opcode == op::FunctionParameter; ++p)
      s.params.emplace_back(all[p].result, all[p].type);
    break;
  }
  return s;
}

// The kernel `entry`'s wrapper, `wrapper`: the kernel's parameters and the launch values,
// which it stores before calling the kernel. Returns the wrapper's parameters in order.
std::vector<uint32_t> addWrapper(Rewriter &r, uint32_t entry, const Signature &kernel,
                                 uint32_t wrapper, LaunchValueRewrite &rewrite) {
  std::vector<uint32_t> types;
  for (auto [id, type] : kernel.params) types.push_back(type);
  types.push_back(rewrite.launchType());
  std::vector<Instruction> body{Rewriter::make(op::Function, kernel.result, wrapper,
                                               {0, r.functionType(kernel.result, types)})};
  std::vector<uint32_t> params, args{entry};
  for (uint32_t type : types) {
    params.push_back(r.newId());
    body.push_back(Rewriter::make(op::FunctionParameter, type, params.back(), {}));
  }
  args.insert(args.end(), params.begin(), params.end() - 1);
  body.push_back(Rewriter::make(op::Label, 0, r.newId(), {}));
  for (Instruction &i : rewrite.storeLaunchValues(r, params.back())) body.push_back(std::move(i));
  body.push_back(Rewriter::make(op::FunctionCall, kernel.result, r.newId(), args));
  body.push_back(Rewriter::make(op::Return, 0, 0, {}));
  body.push_back(Rewriter::make(op::FunctionEnd, 0, 0, {}));
  r.appendToFunctions(body);
  return params;
}

Instruction withString(const Instruction &i, size_t firstWord, const std::string &text) {
  std::vector<uint32_t> operands(i.words.begin() + 1, i.words.begin() + firstWord);
  std::vector<uint32_t> literal((text.size() + 4) / 4, 0);
  std::memcpy(literal.data(), text.data(), text.size());
  operands.insert(operands.end(), literal.begin(), literal.end());
  if (i.result) operands.erase(operands.begin() + (i.type ? 1 : 0));
  if (i.type) operands.erase(operands.begin());
  return Rewriter::make(i.opcode, i.type, i.result, operands);
}

}  // namespace

LaunchValueModule addLaunchValues(std::span<const uint32_t> words, const std::string &name) {
  std::vector<Instruction> all = parseInstructions(words, name);
  std::map<uint32_t, uint32_t> builtInOf;
  for (const Instruction &i : all)
    if (i.opcode == op::Decorate && i.words.size() >= 4 && i.words[2] == kDecorationBuiltIn)
      builtInOf[i.words[1]] = i.words[3];
  LaunchValueModule result;
  Rewriter r(std::move(all), words[3]);
  LaunchValueRewrite rewrite(r, builtInOf, name);
  r.rewriteFunctions([&](Rewriter &, const Instruction &i) { return rewrite.rewrite(i); });
  if (rewrite.rewritten() == 0) {
    result.words.assign(words.begin(), words.end());
    return result;
  }
  if (words[1] >= kVersion1_4) r.addInterface(rewrite.launchVariable());

  // Kernels become wrappers of the same name; their bodies keep their code under another name.
  std::vector<Instruction> &preamble = r.instructions();
  std::map<uint32_t, uint32_t> wrapperOf;      // kernel -> its wrapper
  std::map<uint32_t, std::string> kernelName;  // kernel -> its name
  for (const Instruction &i : preamble) {
    if (i.opcode == op::Function) break;
    if (i.opcode == op::EntryPoint && i.words[1] == kExecutionModelKernel &&
        !wrapperOf.count(i.words[2])) {
      wrapperOf[i.words[2]] = r.newId();
      kernelName[i.words[2]] = literalString(i, 3);
    }
  }
  std::set<std::string> kernelNames;
  for (const auto &[entry, kernel] : kernelName) kernelNames.insert(kernel);
  std::map<uint32_t, uint32_t> paramOf;  // a kernel's parameter -> the wrapper's
  for (auto [entry, wrapper] : wrapperOf) {
    Signature kernel = signatureOf(r.instructions(), entry);
    std::vector<uint32_t> params = addWrapper(r, entry, kernel, wrapper, rewrite);
    for (size_t k = 0; k < kernel.params.size(); ++k) paramOf[kernel.params[k].first] = params[k];
  }
  std::vector<Instruction> added;
  for (Instruction &i : preamble) {
    if (i.opcode == op::Function) break;
    auto entry = wrapperOf.end();
    switch (i.opcode) {
      case op::EntryPoint:
        if (i.words[1] == kExecutionModelKernel) {
          entry = wrapperOf.find(i.words[2]);
          if (entry != wrapperOf.end()) i.words[2] = entry->second;
        }
        break;
      case op::ExecutionMode:
      case op::ExecutionModeId:
        entry = wrapperOf.find(i.words[1]);
        if (entry != wrapperOf.end()) i.words[1] = entry->second;
        break;
      case op::Name:
        // The kernel's name goes to its wrapper. A function the entry point calls may bear
        // the kernel's name too (the LLVM translator's kernels do, behind an entry point that
        // only calls them), and readers take that one for the kernel: it is renamed.
        entry = wrapperOf.find(i.words[1]);
        if (entry != wrapperOf.end())
          i.words[1] = entry->second;
        else if (kernelNames.count(literalString(i, 2)))
          i = withString(i, 2, literalString(i, 2) + ".xpurt_body");
        break;
      case op::String: {
        // The translator's list of argument types, "kernel_arg_type.<kernel>.<type>,<type>,".
        std::string text = literalString(i, 2);
        for (const auto &[function, kernel] : kernelName)
          if (text.rfind("kernel_arg_type." + kernel + ".", 0) == 0) {
            i = withString(i, 2, text + "ulong16,");
            break;
          }
        break;
      }
      case op::Decorate:
        if (i.words.size() > 3 && i.words[2] == kDecorationLinkageAttributes &&
            kernelNames.count(literalString(i, 3))) {
          std::string renamed = literalString(i, 3) + ".xpurt_body";
          uint32_t linkage = i.words.back();
          i = withString(i, 3, renamed);
          i.words.push_back(linkage);
          i.words[0] = uint32_t(i.words.size()) << 16 | op::Decorate;
        }
        if (auto p = paramOf.find(i.words[1]); p != paramOf.end()) {
          std::vector<uint32_t> operands(i.words.begin() + 1, i.words.end());
          operands[0] = p->second;
          added.push_back(Rewriter::make(op::Decorate, 0, 0, operands));
        }
        break;
      default:
        break;
    }
  }
  for (Instruction &d : added) r.addDecoration(std::move(d));
  std::vector<uint32_t> header(words.begin(), words.begin() + 5);
  result.words = r.assemble(header, {}, {});
  result.takesLaunchValues = true;
  return result;
}

}  // namespace xpurt::spirv
