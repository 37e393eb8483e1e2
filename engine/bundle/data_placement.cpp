#include "engine/bundle/data_placement.hpp"

#include <limits>
#include <map>
#include <memory>

#include "engine/bundle/roots.hpp"
#include "engine/loader.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// The roots as a tree of path segments: what to do at each node.
struct Step {
    bool erase = false;
    const Value* write = nullptr;           // the bundle's value for a root ending here
    std::size_t first_write_below = kNone;  // the smallest index of a root written here or below
    std::map<std::string, std::unique_ptr<Step>> below;

    Step& at(const std::vector<std::string>& parts) {
        Step* node = this;
        for (const auto& p : parts) {
            auto& next = node->below[p];
            if (!next) next = std::make_unique<Step>();
            node = next.get();
        }
        return *node;
    }
};

struct Failure {
    std::size_t root = kNone;
    std::string message;
};

// The subtree at `path` after the step: nullopt when nothing is left there.
std::optional<Value> rebuild(const Value* base, const Step& step, std::vector<std::string>& path, Failure& failure) {
    if (step.erase) base = nullptr;
    if (step.write) return *step.write;
    const bool writes = step.first_write_below != kNone;
    if (!base && !writes) return std::nullopt;
    if (base && !base->is_object()) {
        // Erasing below a value that is not an object erases nothing; writing through it fails.
        if (writes && step.first_write_below < failure.root)
            failure = {step.first_write_below, data_path_text(path) + " is not an object"};
        return *base;
    }
    const Value empty = Value::empty_object();
    const Value& object = base ? *base : empty;
    runtime::ObjectBuilder out(object.size() + step.below.size());
    for (const auto& e : object.object_entries())
        if (!e.key.is_string() || !step.below.count(std::string(e.key.as_string()))) out.insert(e.key, e.value);
    for (const auto& [key, next] : step.below) {
        path.push_back(key);
        auto child = rebuild(object.find(key), *next, path, failure);
        path.pop_back();
        if (child) out.insert(Value::string(key), std::move(*child));
    }
    return out.build();
}

}  // namespace

std::optional<Value> place_bundle_data(const Value& base, const std::vector<std::string>& erased_roots,
                                       const std::vector<std::string>& roots, const Value& bundle_data,
                                       std::string& error) {
    Step top;
    for (const auto& root : erased_roots) top.at(path_parts(root)).erase = true;
    for (std::size_t i = 0; i < roots.size(); ++i) {
        auto parts = path_parts(roots[i]);
        const Value* v = &bundle_data;
        for (const auto& p : parts) v = v && v->is_object() ? v->find(p) : nullptr;
        if (!v) continue;  // the bundle has nothing there: the root stays erased
        if (parts.empty()) {
            if (!v->is_object()) return error = "data must be an object", std::nullopt;
            return *v;  // the whole of data
        }
        Step* node = &top;
        for (const auto& p : parts) {
            node->first_write_below = std::min(node->first_write_below, i);
            auto& next = node->below[p];
            if (!next) next = std::make_unique<Step>();
            node = next.get();
        }
        node->first_write_below = std::min(node->first_write_below, i);
        node->write = v;
    }
    std::vector<std::string> path;
    Failure failure;
    auto placed = rebuild(&base, top, path, failure);
    if (failure.root != kNone) return error = failure.message, std::nullopt;
    return placed ? *placed : Value::empty_object();
}

}  // namespace gavel::engine::bundle
