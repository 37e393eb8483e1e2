#pragma once
// Prometheus' standard process metrics, as every Go and client_golang program
// exports them (dashboards expect these names): process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds. Read from
// /proc/self at each scrape; a metric whose source cannot be read is left out.

#include <string>

namespace gavel::webhook {

// The metrics in Prometheus' text format (HELP, TYPE and one sample each).
std::string process_metrics_text();

}  // namespace gavel::webhook
