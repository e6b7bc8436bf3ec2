package main

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/pflag"

	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// connectionFlags are how conform reaches an external target: the flags
// users of other HTTP conformance tools expect (a gateway's headers, a
// timeout per request, self-signed TLS, every exchange shown).
type connectionFlags struct {
	headers  []string
	timeout  time.Duration
	insecure bool
	verbose  bool
}

func (c *connectionFlags) bind(fl *pflag.FlagSet) {
	fl.StringArrayVarP(&c.headers, "header", "H", nil, "header sent with every request to the target, as 'Name: value' (repeatable; for a gateway in front of the host)")
	fl.DurationVar(&c.timeout, "timeout", target.DefaultTimeout, "time a single request may take")
	fl.BoolVar(&c.insecure, "insecure", false, "do not verify the target's TLS certificate (self-signed test hosts)")
	fl.BoolVarP(&c.verbose, "verbose", "v", false, "print every HTTP exchange, credentials and --header values masked, to stderr as it completes; progress adds what passed scenarios observed")
}

// words are the flags as a printed command line repeats them, each
// header's value masked (a gateway's key is a secret too); -v, which
// changes only what is printed, is left out.
func (c *connectionFlags) words() []string {
	var out []string
	for _, h := range c.headers {
		if name, _, err := target.ParseHeader(h); err == nil {
			out = append(out, "--header", name+": "+wire.Masked)
		}
	}
	if c.timeout != target.DefaultTimeout {
		out = append(out, "--timeout", c.timeout.String())
	}
	if c.insecure {
		out = append(out, "--insecure")
	}
	return out
}

// parse checks the flags before anything is sent, and warns once about
// what weakens the run's safety.
func (c *connectionFlags) parse(stderr io.Writer) (target.Connection, error) {
	out := target.Connection{Timeout: c.timeout, Insecure: c.insecure}
	if c.timeout <= 0 {
		return out, fmt.Errorf("--timeout %s: give a positive duration, such as 30s", c.timeout)
	}
	for _, h := range c.headers {
		name, value, err := target.ParseHeader(h)
		if err != nil {
			return out, fmt.Errorf("--header: %w", err)
		}
		if out.Headers == nil {
			out.Headers = http.Header{}
		}
		out.Headers.Add(name, value)
	}
	if c.insecure {
		fmt.Fprintln(stderr, "conform: --insecure: the target's TLS certificate is not verified, so anyone on the path could read the credentials this run sends")
	}
	if c.verbose {
		out.Log = stderr
	}
	return out, nil
}
