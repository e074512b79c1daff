// Package experiment is what every experiment family shares: the run's
// configuration (workloads, sizes, data files), the two sides a
// comparison runs, one workload case verified and measured on both sides
// and placed against the roofs, the GPU variant chosen for the adapter,
// the host's state around a row, and the summary lines of a report. The
// families themselves live in rooms under it (suite, ceilings, crossover,
// sweeps, hybrid, plan, kernel, latency, sidebyside), over the
// environment they run in (env). It decides nothing about output formats
// (package report) or flags (the CLI).
package experiment
