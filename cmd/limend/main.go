// Command limend is limen's daemon: the decision point an agent runtime asks
// before each action. Run it with no flags; see `limend --help`.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}
