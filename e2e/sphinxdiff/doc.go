// Package sphinxdiff is the differential test of the full-text engine: the
// same documents go into Sphinx 2.2.11 (Debian's sphinxsearch, RT indexes)
// and into glint with the same settings, and for every query of
// testdata/queries.txt both must find the same set of documents. Where the
// dialect differs from Sphinx 2.2.11 on purpose, testdata/differences.txt
// gives glint's expected answer and the reason.
//
// The test skips when searchd is not installed, unless GLINT_REQUIRE_SPHINX=1
// (make test installs it: scripts/install-test-deps.sh). Run one setup with
// -run 'TestSphinxDiff/stem', or one query with -query 'text'.
package sphinxdiff
