// Package bundlecheck holds no code: its test builds the portable bundle
// with scripts/bundle.sh and runs it from a folder outside the repository
// with an empty environment and a PATH of a few system tools only (no Go,
// no Python), the way it runs when copied to a remote GPU machine
// (docs/GPU.md).
package bundlecheck
