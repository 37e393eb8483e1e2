#include "webhook/process_metrics.hpp"

#include <fmt/format.h>

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "webhook/prometheus_text.hpp"

namespace gavel::webhook {

namespace {

void gauge(std::string& out, const char* name, const char* type, const char* help, double value) {
    render_family_header(out, name, type, help);
    out += fmt::format("{} {}\n", name, prometheus_number(value));
}

// /proc/self/stat's fields after the command name (which may hold spaces and parentheses).
std::vector<std::string> stat_fields() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    auto close = line.rfind(')');
    if (close == std::string::npos) return {};
    std::istringstream rest(line.substr(close + 2));
    std::vector<std::string> fields;
    for (std::string f; rest >> f;) fields.push_back(f);
    return fields;  // fields[0] is the state (stat field 3)
}

// Seconds since the epoch at which the machine booted (/proc/stat btime).
double boot_time() {
    std::ifstream in("/proc/stat");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
    return -1;
}

}  // namespace

std::string process_metrics_text() {
    std::string out;
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    auto f = stat_fields();
    // stat field n is f[n - 3]: utime 14, stime 15, starttime 22, vsize 23, rss 24.
    if (f.size() >= 22 && ticks > 0) {
        try {
            double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;
            gauge(out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu);
            gauge(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", std::stod(f[20]));
            gauge(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                  std::stod(f[21]) * page);
            if (double boot = boot_time(); boot >= 0)
                gauge(out, "process_start_time_seconds", "gauge",
                      "Start time of the process since unix epoch in seconds.", boot + std::stod(f[19]) / ticks);
        } catch (const std::exception&) {}
    }
    if (DIR* d = opendir("/proc/self/fd")) {
        long n = 0;
        while (dirent* e = readdir(d))
            if (e->d_name[0] != '.') ++n;
        closedir(d);
        gauge(out, "process_open_fds", "gauge", "Number of open file descriptors.",
              static_cast<double>(n - 1));  // less opendir's own
    }
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0)
        gauge(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
              lim.rlim_cur == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_cur));
    return out;
}

}  // namespace gavel::webhook
