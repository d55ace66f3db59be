// Command sampledecide prints the SDK's head-sampling decision for each "<trace id> <rate>" line
// of its input: "1" kept, "0" dropped. The end-to-end tests compare it with the Node and Web SDKs.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	svc "svc.dev/sdk-go"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		fields := strings.Fields(in.Text())
		if len(fields) != 2 {
			fmt.Fprintf(os.Stderr, "want \"<trace id> <rate>\", got %q\n", in.Text())
			os.Exit(2)
		}
		rate, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if svc.IsSampled(fields[0], rate) {
			out.WriteString("1\n")
		} else {
			out.WriteString("0\n")
		}
	}
}
