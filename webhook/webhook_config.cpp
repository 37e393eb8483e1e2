#include "webhook/webhook_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "webhook/admission.hpp"
#include "webhook/json_patch.hpp"

namespace gavel::webhook {

namespace {

std::vector<std::string> split_dots(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        auto dot = s.find('.', start);
        out.push_back(s.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

// A DNS-1123 label out of a package path: lower case, [a-z0-9-].
std::string dns_name(const std::vector<std::string>& package) {
    std::string out;
    for (char c : join(package, "-")) {
        unsigned char u = static_cast<unsigned char>(c);
        out.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-');
    }
    return out.empty() ? "root" : out;
}

std::string quoted_list(const std::vector<std::string>& items) {
    std::vector<std::string> q;
    for (const auto& i : items) q.push_back("\"" + i + "\"");
    return "[" + join(q, ", ") + "]";
}

}  // namespace

std::string resource_for_kind(const std::string& kind) {
    std::string lower;
    for (char c : kind) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (lower.empty()) return "*";
    auto ends = [&](std::string_view s) { return lower.size() >= s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0; };
    if (ends("s") || ends("x") || ends("ch") || ends("sh")) return lower + "es";
    if (ends("y") && lower.size() > 1 && std::string_view("aeiou").find(lower[lower.size() - 2]) == std::string_view::npos)
        return lower.substr(0, lower.size() - 1) + "ies";
    return lower + "s";
}

std::vector<PackageRules> scan_policies(const std::map<std::string, std::string>& policies) {
    static const std::regex package_re(R"(^\s*package\s+([A-Za-z_][A-Za-z0-9_.]*))");
    static const std::regex validate_re(R"(^\s*(deny|violation|warn)\b)");
    static const std::regex mutate_re(R"(^\s*patch\b)");
    static const std::regex main_re(R"(^\s*main\b)");
    static const std::regex kind_re(R"re(kind\.kind\s*==\s*"([A-Za-z0-9]+)"|"([A-Za-z0-9]+)"\s*==\s*input\.request\.kind\.kind)re");
    std::map<std::string, PackageRules> by_name;
    for (const auto& [file, text] : policies) {
        std::istringstream lines(text);
        std::string line;
        PackageRules* current = nullptr;
        while (std::getline(lines, line)) {
            std::smatch m;
            if (std::regex_search(line, m, package_re)) {
                auto& p = by_name[m[1]];
                p.package = split_dots(m[1]);
                current = &p;
                continue;
            }
            if (!current) continue;
            if (std::regex_search(line, validate_re)) current->validates = true;
            if (std::regex_search(line, mutate_re)) current->mutates = true;
            if (std::regex_search(line, main_re) && join(current->package, ".") == "system") current->main = true;
            for (auto it = std::sregex_iterator(line.begin(), line.end(), kind_re); it != std::sregex_iterator(); ++it)
                current->kinds.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
        }
    }
    std::vector<PackageRules> out;
    for (auto& [name, p] : by_name)
        if (p.validates || p.mutates || p.main) out.push_back(std::move(p));
    return out;
}

std::string webhook_config_yaml(const std::vector<PackageRules>& packages, const WebhookConfigOptions& o) {
    struct Hook {
        std::string name, path;
        std::vector<std::string> resources;
    };
    std::vector<Hook> validating, mutating;
    std::string suffix = o.name == "gavel" ? "gavel.dev" : o.name + ".gavel.dev";
    for (const auto& p : packages) {
        std::vector<std::string> resources;
        for (const auto& k : p.kinds) resources.push_back(resource_for_kind(k));
        if (resources.empty()) resources.push_back("*");
        std::vector<std::string> escaped;
        for (const auto& seg : p.package) escaped.push_back(escape_pointer_segment(seg));
        if (p.main) validating.push_back({"main." + suffix, "/", resources});
        if (p.validates)
            validating.push_back({dns_name(p.package) + ".validate." + suffix, "/validate/" + join(escaped, "/"), resources});
        if (p.mutates)
            mutating.push_back({dns_name(p.package) + ".mutate." + suffix, "/mutate/" + join(escaped, "/"), resources});
    }
    std::string ca = o.ca_bundle_pem.empty() ? "" : base64_encode(o.ca_bundle_pem);
    auto document = [&](std::string_view kind, std::string_view kind_suffix, const std::vector<Hook>& hooks) {
        std::string y;
        y += "apiVersion: admissionregistration.k8s.io/v1\n";
        y += fmt::format("kind: {}\n", kind);
        y += fmt::format("metadata:\n  name: {}-{}\n", o.name, kind_suffix);
        if (!o.inject_ca_from.empty())
            y += fmt::format("  annotations:\n    cert-manager.io/inject-ca-from: {}\n", o.inject_ca_from);
        y += "webhooks:\n";
        for (const auto& h : hooks) {
            y += fmt::format("  - name: {}\n", h.name);
            y += "    admissionReviewVersions: [\"v1\", \"v1beta1\"]\n";
            y += "    sideEffects: None\n";
            y += fmt::format("    failurePolicy: {}\n", o.failure_policy);
            y += fmt::format("    timeoutSeconds: {}\n", o.timeout_seconds);
            if (kind == "MutatingWebhookConfiguration") y += "    reinvocationPolicy: Never\n";
            y += "    namespaceSelector:\n      matchExpressions:\n";
            y += fmt::format("        - key: {}\n          operator: DoesNotExist\n", o.ignore_label);
            y += "    rules:\n";
            y += fmt::format("      - operations: {}\n", quoted_list(o.operations));
            y += "        apiGroups: [\"*\"]\n        apiVersions: [\"*\"]\n";
            y += fmt::format("        resources: {}\n", quoted_list(h.resources));
            y += "        scope: \"*\"\n";
            y += "    clientConfig:\n";
            if (!o.url.empty()) {
                std::string base = o.url;
                while (!base.empty() && base.back() == '/') base.pop_back();
                y += fmt::format("      url: \"{}{}\"\n", base, h.path);
            } else {
                y += fmt::format("      service:\n        namespace: {}\n        name: {}\n        path: \"{}\"\n        port: {}\n",
                                 o.service_namespace, o.service_name, h.path, o.service_port);
            }
            if (!ca.empty()) y += fmt::format("      caBundle: {}\n", ca);
        }
        return y;
    };
    std::string out;
    if (!validating.empty()) out += document("ValidatingWebhookConfiguration", "validating", validating);
    if (!mutating.empty()) {
        if (!out.empty()) out += "---\n";
        out += document("MutatingWebhookConfiguration", "mutating", mutating);
    }
    return out;
}

std::vector<GatekeeperRule> gatekeeper_rules(
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& kinds, bool some_constraint_matches_all) {
    if (some_constraint_matches_all) return {{{"*"}, {"*"}}};
    std::map<std::vector<std::string>, std::set<std::string>> by_groups;
    for (const auto& [groups, names] : kinds) {
        std::vector<std::string> g = groups;
        if (g.empty() || std::find(g.begin(), g.end(), "*") != g.end()) g = {"*"};
        std::sort(g.begin(), g.end());
        g.erase(std::unique(g.begin(), g.end()), g.end());
        auto& resources = by_groups[g];
        if (names.empty() || std::find(names.begin(), names.end(), "*") != names.end()) resources.insert("*");
        for (const auto& n : names)
            if (n != "*") resources.insert(resource_for_kind(n));
    }
    std::vector<GatekeeperRule> out;
    for (auto& [groups, resources] : by_groups) {
        GatekeeperRule r{groups, {}};
        if (resources.count("*")) r.resources = {"*"};
        else r.resources.assign(resources.begin(), resources.end());
        out.push_back(std::move(r));
    }
    return out;
}

std::string gatekeeper_webhook_config_yaml(const std::vector<GatekeeperRule>& rules, const WebhookConfigOptions& o) {
    if (rules.empty()) return {};
    std::string suffix = o.name == "gavel" ? "gavel.dev" : o.name + ".gavel.dev";
    std::string y;
    y += "apiVersion: admissionregistration.k8s.io/v1\n";
    y += "kind: ValidatingWebhookConfiguration\n";
    y += fmt::format("metadata:\n  name: {}-gatekeeper\n", o.name);
    if (!o.inject_ca_from.empty()) y += fmt::format("  annotations:\n    cert-manager.io/inject-ca-from: {}\n", o.inject_ca_from);
    y += "webhooks:\n";
    y += fmt::format("  - name: gatekeeper.validate.{}\n", suffix);
    y += "    admissionReviewVersions: [\"v1\", \"v1beta1\"]\n";
    y += "    sideEffects: None\n";
    y += fmt::format("    failurePolicy: {}\n", o.failure_policy);
    y += fmt::format("    timeoutSeconds: {}\n", o.timeout_seconds);
    y += "    namespaceSelector:\n      matchExpressions:\n";
    y += fmt::format("        - key: {}\n          operator: DoesNotExist\n", o.ignore_label);
    y += "    rules:\n";
    for (const auto& r : rules) {
        y += fmt::format("      - operations: {}\n", quoted_list(o.operations));
        y += fmt::format("        apiGroups: {}\n        apiVersions: [\"*\"]\n", quoted_list(r.api_groups));
        y += fmt::format("        resources: {}\n", quoted_list(r.resources));
        y += "        scope: \"*\"\n";
    }
    y += "    clientConfig:\n";
    if (!o.url.empty()) {
        std::string base = o.url;
        while (!base.empty() && base.back() == '/') base.pop_back();
        y += fmt::format("      url: \"{}/gatekeeper\"\n", base);
    } else {
        y += fmt::format("      service:\n        namespace: {}\n        name: {}\n        path: \"/gatekeeper\"\n        port: {}\n",
                         o.service_namespace, o.service_name, o.service_port);
    }
    if (!o.ca_bundle_pem.empty()) y += fmt::format("      caBundle: {}\n", base64_encode(o.ca_bundle_pem));
    return y;
}

}  // namespace gavel::webhook
