package etcdstore

// SetScanPage sets how many keys a walk reads per request, and returns
// how to set it back.
func SetScanPage(n int64) (restore func()) {
	old := scanPage
	scanPage = n
	return func() { scanPage = old }
}
