// Command limenctl talks to limend: decide actions, answer asks, tune the
// policy, read the history. See `limenctl --help`.
package main

import "os"

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}
