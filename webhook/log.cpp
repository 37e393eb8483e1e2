#include "webhook/log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "runtime/json.hpp"

namespace gavel::webhook {

namespace {
std::mutex& output_mutex() {
    static std::mutex m;
    return m;
}
}  // namespace

std::string utc_timestamp() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros));
    return buf;
}

void log_line(std::string_view level, std::string_view message,
              std::initializer_list<std::pair<std::string_view, runtime::Value>> fields) {
    runtime::ObjectBuilder b;
    b.insert(runtime::Value::string("time"), runtime::Value::string(utc_timestamp()));
    b.insert(runtime::Value::string("level"), runtime::Value::string(level));
    b.insert(runtime::Value::string("msg"), runtime::Value::string(message));
    for (const auto& [k, v] : fields) b.insert(runtime::Value::string(k), v);
    std::string line = runtime::to_json(b.build());
    line.push_back('\n');
    std::lock_guard lock(output_mutex());
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

void decision_log_line(const runtime::Value& entry) {
    std::string line = runtime::to_json(entry);
    line.push_back('\n');
    std::lock_guard lock(output_mutex());
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

}  // namespace gavel::webhook
