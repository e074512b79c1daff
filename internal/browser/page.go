package browser

import _ "embed"

// The page: plain HTML and one script, embedded; no build step.
var (
	//go:embed page/index.html
	pageHTML string
	//go:embed page/page.js
	pageJS []byte
)
