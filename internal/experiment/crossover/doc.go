// Package crossover finds where the faster of two sides changes
// (wgpu-prof breakeven): an adaptive search over batch sizes on both
// sides, each verified before it is timed, the sizes where the faster
// side changes measured again, the verdict and the fitted models; and the
// batch mixes a break-even and a plan are read at.
package crossover
