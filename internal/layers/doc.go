// Package layers holds no code: its tests hold the module to the
// direction of its arrows. A public package (anything outside internal/,
// cmd/ and examples/, and the examples, which use the library as a
// user does) imports nothing under internal/; a package under internal/
// imports only internal packages of a lower layer:
//
//	experiment            the measurements, in rooms ranked in layers_test.go
//	workload              the descriptors the measurements run
//	report dataset verify machine
//	gputest testmem buildcheck bundlecheck layers errconv   test support
//
// A new internal package is given its layer in layers_test.go.
//
// docs_test.go holds docs/METHOD.md to 300 lines and every reference
// `NAME.md, "Section"` in the Go code, the README and docs/ to a heading
// of docs/NAME.md.
//
// funclen_test.go holds every non-generated, non-test function of the
// module to 80 lines.
package layers
