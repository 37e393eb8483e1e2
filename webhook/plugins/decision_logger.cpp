#include "webhook/plugins/decision_logger.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "engine/bundle/gzip_stream.hpp"
#include "runtime/json.hpp"
#include "webhook/log.hpp"
#include "webhook/plugins/backoff.hpp"
#include "webhook/plugins/service_client.hpp"
#include "support/random_uuid.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook::plugins {

using runtime::Value;

namespace {

// Go's time.Time JSON: RFC 3339 with nanoseconds, trailing zeros dropped.
std::string rfc3339_nano() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() % 1000000000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
    std::string out = buf;
    if (nanos) {
        char frac[16];
        std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(nanos));
        std::string f = frac;
        while (f.back() == '0') f.pop_back();
        out += f;
    }
    return out + "Z";
}

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> out;
    std::size_t start = 1;
    while (start <= path.size()) {
        auto slash = path.find('/', start);
        out.emplace_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

bool as_index(const std::string& s, std::size_t size, std::size_t& out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9) return false;
    out = static_cast<std::size_t>(std::stoul(s));
    return out < size;
}

// Removes `path` below `node`; false when the path does not exist (OPA skips such rules).
bool remove_at(Value& node, const std::vector<std::string>& path, std::size_t i) {
    if (i + 1 == path.size()) {
        if (node.is_object()) {
            if (!node.find(path[i])) return false;
            runtime::ObjectBuilder b;
            for (const auto& e : node.object_entries())
                if (!(e.key.is_string() && e.key.as_string() == path[i])) b.insert(e.key, e.value);
            node = b.build();
            return true;
        }
        std::size_t idx;
        if (node.is_array() && as_index(path[i], node.size(), idx)) {
            runtime::ArrayBuilder b;
            for (std::size_t k = 0; k < node.size(); ++k)
                if (k != idx) b.push_back(node.array_elements()[k]);
            node = b.build();
            return true;
        }
        return false;
    }
    Value child;
    if (node.is_object()) {
        const Value* c = node.find(path[i]);
        if (!c) return false;
        child = *c;
        if (!remove_at(child, path, i + 1)) return false;
        runtime::ObjectBuilder b;
        for (const auto& e : node.object_entries())
            b.insert(e.key, e.key.is_string() && e.key.as_string() == path[i] ? child : e.value);
        node = b.build();
        return true;
    }
    std::size_t idx;
    if (node.is_array() && as_index(path[i], node.size(), idx)) {
        child = node.array_elements()[idx];
        if (!remove_at(child, path, i + 1)) return false;
        runtime::ArrayBuilder b;
        for (std::size_t k = 0; k < node.size(); ++k) b.push_back(k == idx ? child : node.array_elements()[k]);
        node = b.build();
        return true;
    }
    return false;
}

// mkdirp then set: missing objects on the way are created (objects only, as OPA's upsert).
bool upsert_at(Value& node, const std::vector<std::string>& path, std::size_t i, const Value& value) {
    if (!node.is_object()) return false;
    Value child = Value::empty_object();
    if (const Value* c = node.find(path[i])) child = *c;
    if (i + 1 == path.size()) child = value;
    else if (!upsert_at(child, path, i + 1, value)) return false;
    runtime::ObjectBuilder b;
    for (const auto& e : node.object_entries())
        if (!(e.key.is_string() && e.key.as_string() == path[i])) b.insert(e.key, e.value);
    b.insert(str(path[i]), child);
    node = b.build();
    return true;
}

}  // namespace

Value apply_mask_rules(const Value& event, const Value& rules, std::vector<std::string>& errors) {
    if (!rules.is_array() && !rules.is_set()) {
        errors.push_back("unexpected rule format " + runtime::to_json(rules));
        return event;
    }
    std::map<std::string, Value> parts;  // input, result, nd_builtin_cache
    for (const char* k : {"input", "result", "nd_builtin_cache"})
        if (const Value* v = event.find(k)) parts[k] = *v;
    std::vector<std::string> erased, masked;
    // A mask rule written `mask contains ...` is a set: its rules in canonical order.
    auto list = rules.is_array() ? rules.array_elements() : rules.set_elements();
    for (const auto& rule : list) {
        std::string op = "remove", path;
        Value value;
        if (rule.is_string()) {
            path = std::string(rule.as_string());
        } else if (rule.is_object()) {
            if (const Value* o = rule.find("op")) op = o->is_string() ? std::string(o->as_string()) : "";
            if (const Value* p = rule.find("path")) path = p->is_string() ? std::string(p->as_string()) : "";
            if (const Value* v = rule.find("value")) value = *v;
        } else {
            errors.push_back("invalid mask rule format encountered");
            continue;
        }
        if (path.empty() || path[0] != '/') {
            errors.push_back(path.empty() ? "mask must be non-empty" : "mask must be slash-prefixed");
            continue;
        }
        if (op != "remove" && op != "upsert") {
            errors.push_back("mask op is not supported: " + op);
            continue;
        }
        auto segs = split_path(path);
        if (segs[0] != "input" && segs[0] != "result" && segs[0] != "nd_builtin_cache") {
            errors.push_back("mask prefix not allowed: " + segs[0]);
            continue;
        }
        auto it = parts.find(segs[0]);
        if (op == "remove") {
            if (it == parts.end()) continue;
            if (segs.size() == 1) parts.erase(it);
            else if (!remove_at(it->second, segs, 1)) continue;
            erased.push_back(path);
        } else {
            if (segs.size() == 1) parts[segs[0]] = value;
            else if (it == parts.end() || !upsert_at(it->second, segs, 1, value)) continue;
            masked.push_back(path);
        }
    }
    runtime::ObjectBuilder b;
    for (const auto& e : event.object_entries()) {
        std::string k = e.key.is_string() ? std::string(e.key.as_string()) : "";
        if (k == "input" || k == "result" || k == "nd_builtin_cache" || k == "erased" || k == "masked") continue;
        b.insert(e.key, e.value);
    }
    for (const auto& [k, v] : parts) b.insert(str(k), v);
    auto list_value = [](const std::vector<std::string>& items) {
        runtime::ArrayBuilder a;
        for (const auto& s : items) a.push_back(Value::string(s));
        return a.build();
    };
    if (!erased.empty()) b.insert(str("erased"), list_value(erased));
    if (!masked.empty()) b.insert(str("masked"), list_value(masked));
    return b.build();
}

std::vector<std::string> encode_chunks(const std::vector<std::string>& events, std::size_t limit) {
    std::vector<std::string> chunks;
    std::string current;
    for (const auto& e : events) {
        if (!current.empty() && current.size() + e.size() + 2 > limit) {
            current += "]";
            chunks.push_back(engine::bundle::gzip_compress(current));
            current.clear();
        }
        current += current.empty() ? "[" : ",";
        current += e;
    }
    if (!current.empty()) {
        current += "]";
        chunks.push_back(engine::bundle::gzip_compress(current));
    }
    return chunks;
}

DecisionLogger::DecisionLogger(DecisionLogConfig config, const Config& full, std::shared_ptr<PolicyStore> store,
                               std::shared_ptr<Metrics> metrics, std::map<std::string, std::string> labels)
    : config_(std::move(config)), store_(std::move(store)), metrics_(std::move(metrics)) {
    if (!config_.service.empty()) service_ = full.services.at(config_.service);
    runtime::ObjectBuilder b;
    for (const auto& [k, v] : labels) b.insert(str(k), str(v));
    labels_ = b.build();
    std::string q = "data";
    for (const auto& seg : split_path(config_.mask_decision))
        if (!seg.empty()) q += '[' + runtime::to_json(str(seg)) + "]";
    mask_query_ = q;
}

DecisionLogger::~DecisionLogger() { stop(); }

void DecisionLogger::log(DecisionEvent e) {
    runtime::ObjectBuilder b;
    b.insert(str("decision_id"), str(e.decision_id.empty() ? support::random_uuid() : e.decision_id));
    b.insert(str("labels"), labels_);
    if (!e.bundles.empty()) {
        runtime::ObjectBuilder bundles;
        for (const auto& [name, revision] : e.bundles)
            bundles.insert(str(name), revision.empty() ? Value::empty_object()
                                                       : Value::object({{str("revision"), str(revision)}}));
        b.insert(str("bundles"), bundles.build());
    }
    if (!e.path.empty()) b.insert(str("path"), str(e.path));
    if (!e.query.empty()) b.insert(str("query"), str(e.query));
    if (e.input) b.insert(str("input"), *e.input);
    if (e.result) b.insert(str("result"), *e.result);
    if (!e.error.empty()) b.insert(str("error"), Value::object({{str("message"), str(e.error)}}));
    if (!e.requested_by.empty()) b.insert(str("requested_by"), str(e.requested_by));
    b.insert(str("timestamp"), str(rfc3339_nano()));
    if (!e.metrics.empty()) {
        runtime::ObjectBuilder m;
        for (const auto& [k, v] : e.metrics) m.insert(str(k), Value::integer(static_cast<std::int64_t>(v)));
        b.insert(str("metrics"), m.build());
    }
    b.insert(str("req_id"), Value::integer(static_cast<std::int64_t>(++req_ids_)));
    Value event = b.build();

    // Masking: the mask policy sees the whole event as input.
    auto q = store_->query(mask_query_);
    if (q.query) {
        EvalOptions eo;
        eo.input = &event;
        eo.timeout = std::chrono::seconds(1);
        auto r = q.query->eval(eo);
        if (r.error) {
            log_line("error", "decision log masking failed; the event is dropped", {{"error", str(r.error->message)}});
            dropped_++;
            metrics_->plugin_add("gavel_decision_logs_dropped_total", "{reason=\"mask_error\"}", 1, "counter",
                                 "Decision log events dropped, by reason.");
            return;
        }
        if (!r.rows.empty() && !r.rows[0].expressions.empty()) {
            std::vector<std::string> errors;
            event = apply_mask_rules(event, r.rows[0].expressions[0].value, errors);
            for (const auto& err : errors) log_line("error", "mask rule skipped", {{"error", str(err)}});
        }
    }
    if (config_.console) {
        // OPA's console logger: the event's fields, plus level, msg, time and type.
        runtime::ObjectBuilder line;
        for (const auto& f : event.object_entries()) line.insert(f.key, f.value);
        line.insert(str("level"), str("info"));
        line.insert(str("msg"), str("Decision Log"));
        line.insert(str("time"), str(utc_timestamp()));
        line.insert(str("type"), str("openpolicyagent.org/decision_logs"));
        decision_log_line(line.build());
    }
    if (service_) push(runtime::to_json(event));
}

void DecisionLogger::push(std::string encoded) {
    std::lock_guard lock(mutex_);
    buffer_bytes_ += encoded.size();
    buffer_.push_back(std::move(encoded));
    drop_over_limit();
}

void DecisionLogger::drop_over_limit() {
    while (buffer_bytes_ > static_cast<std::size_t>(config_.buffer_size_limit_bytes) && !buffer_.empty()) {
        buffer_bytes_ -= buffer_.front().size();
        buffer_.pop_front();
        ++dropped_;
        metrics_->plugin_add("gavel_decision_logs_dropped_total", "{reason=\"buffer_size_limit_bytes_exceeded\"}", 1,
                             "counter", "Decision log events dropped, by reason.");
    }
}

std::size_t DecisionLogger::buffered() const {
    std::lock_guard lock(mutex_);
    return buffer_.size();
}

bool DecisionLogger::flush() {
    if (!service_) return true;
    std::vector<std::string> events;
    {
        std::lock_guard lock(mutex_);
        events.assign(std::make_move_iterator(buffer_.begin()), std::make_move_iterator(buffer_.end()));
        buffer_.clear();
        buffer_bytes_ = 0;
    }
    if (events.empty()) return true;
    // Chunks are cut by uncompressed size, so each upload is at most the limit compressed too.
    std::size_t sent = 0;
    bool ok = true;
    std::string failure;
    std::vector<std::string> pending = events;
    std::size_t limit = static_cast<std::size_t>(config_.upload_size_limit_bytes);
    std::size_t start = 0;
    while (start < pending.size()) {
        std::size_t end = start, bytes = 2;
        while (end < pending.size() && (end == start || bytes + pending[end].size() + 1 <= limit))
            bytes += pending[end++].size() + 1;
        std::vector<std::string> slice(pending.begin() + static_cast<std::ptrdiff_t>(start),
                                       pending.begin() + static_cast<std::ptrdiff_t>(end));
        auto chunks = encode_chunks(slice, limit);
        auto response = call_service(*service_, "POST", config_.resource,
                                     {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}},
                                     chunks.front(), std::chrono::seconds(10));
        if (response.status < 200 || response.status >= 300) {
            ok = false;
            failure = response.status ? "log upload failed, server replied with HTTP " + std::to_string(response.status)
                                      : "log upload failed: " + response.error;
            break;
        }
        sent += end - start;
        start = end;
    }
    uploaded_ += sent;
    metrics_->plugin_add("gavel_decision_logs_uploaded_total", "", static_cast<double>(sent), "counter",
                         "Decision log events accepted by the decision log service.");
    if (!ok) {
        // Back in front of newer events, within the same bound.
        std::lock_guard lock(mutex_);
        for (std::size_t i = pending.size(); i-- > start;) {
            buffer_bytes_ += pending[i].size();
            buffer_.push_front(std::move(pending[i]));
        }
        drop_over_limit();
        log_line("error", "decision log upload failed; events kept for the next attempt",
                 {{"error", str(failure)}, {"buffered", Value::integer(static_cast<std::int64_t>(buffer_.size()))}});
    }
    return ok;
}

void DecisionLogger::start() {
    if (!service_) return;
    thread_ = std::thread([this] { loop(); });
}

void DecisionLogger::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (service_) flush();  // what is left, once
}

void DecisionLogger::loop() {
    int retry = 0;
    while (true) {
        double min = static_cast<double>(config_.min_delay_seconds),
               max = static_cast<double>(config_.max_delay_seconds);
        // OPA's logs plugin: a random delay after an upload, util.DefaultBackoff after a failure.
        std::chrono::nanoseconds delay = retry == 0 ? random_delay(min, max) : default_backoff(1e8, max * 1e9, retry);
        {
            std::unique_lock lock(mutex_);
            if (wake_.wait_for(lock, delay, [this] { return stopping_; })) return;
        }
        retry = flush() ? 0 : retry + 1;
    }
}

}  // namespace gavel::webhook::plugins
