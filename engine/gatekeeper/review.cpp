#include "engine/gatekeeper/review.hpp"

#include "engine/gatekeeper/kube_object.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

namespace {

Value str(std::string_view s) { return Value::string(s); }

// A metav1.GroupVersionKind / GroupVersionResource: every field present.
Value triple(const Value* v, std::string_view third) {
    auto field = [&](std::string_view name) {
        const Value* f = v && v->is_object() ? v->find(name) : nullptr;
        return f && f->is_string() ? *f : str("");
    };
    return Value::object(
        {{str("group"), field("group")}, {str("version"), field("version")}, {str(third), field(third)}});
}

}  // namespace

Review review_of_object(const Value& object, const Value& namespace_object, bool namespace_object_in_input) {
    Review r;
    auto gvk = gvk_of(object);
    runtime::ObjectBuilder b;
    b.insert(str("uid"), str(""));
    b.insert(str("kind"),
             Value::object(
                 {{str("group"), str(gvk.group)}, {str("version"), str(gvk.version)}, {str("kind"), str(gvk.kind)}}));
    b.insert(str("resource"), triple(nullptr, "resource"));
    if (auto name = object_name(object); !name.empty()) b.insert(str("name"), str(name));
    if (auto ns = object_namespace(object); !ns.empty()) b.insert(str("namespace"), str(ns));
    b.insert(str("operation"), str(""));
    b.insert(str("userInfo"), Value::empty_object());
    b.insert(str("object"), object);
    b.insert(str("oldObject"), Value());
    b.insert(str("options"), Value());
    b.insert(str("namespaceObject"), namespace_object_in_input ? namespace_object : Value());
    r.request = b.build();
    r.object = object;
    r.namespace_object = namespace_object;
    r.namespace_name = std::string(object_namespace(object));
    return r;
}

std::optional<Review> review_of_request(const Value& request, const Value& namespace_object,
                                        bool namespace_object_in_input, std::string& error) {
    if (!request.is_object()) {
        error = "the AdmissionReview has no request";
        return std::nullopt;
    }
    Review r;
    r.operation = std::string(string_at(request, {"operation"}));
    const Value* object = request.find("object");
    const Value* old_object = request.find("oldObject");
    bool has_object = object && !object->is_null();
    bool has_old = old_object && !old_object->is_null();
    if (!has_object && !has_old) {
        error = "AdmissionRequest does not contain an \"object\" or \"oldObject\" to review";
        return std::nullopt;
    }
    if (r.operation == "DELETE") {
        if (!has_old) {
            error = "oldObject cannot be nil for DELETE operations";
            return std::nullopt;
        }
        object = old_object;
        has_object = true;
    }
    runtime::ObjectBuilder b;
    // Fields the Go struct always writes; the request's own values win.
    b.insert(str("uid"), str(""));
    b.insert(str("operation"), str(""));
    b.insert(str("userInfo"), Value::empty_object());
    b.insert(str("oldObject"), Value());
    b.insert(str("options"), Value());
    for (const auto& e : request.object_entries()) b.insert(e.key, e.value);
    b.insert(str("kind"), triple(request.find("kind"), "kind"));
    b.insert(str("resource"), triple(request.find("resource"), "resource"));
    b.insert(str("object"), has_object ? *object : Value());
    b.insert(str("namespaceObject"), namespace_object_in_input ? namespace_object : Value());
    r.request = b.build(runtime::DuplicateKeys::LastWins);
    r.object = has_object ? *object : Value();
    r.old_object = has_old ? *old_object : Value();
    r.namespace_object = namespace_object;
    r.namespace_name = std::string(string_at(request, {"namespace"}));
    return r;
}

}  // namespace gavel::gatekeeper
