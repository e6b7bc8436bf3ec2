// Command fakeclient runs the harness's test MCP client once (package
// fakeclient): the compliant reference client, or with -break a client
// that departs from one requirement. The client half's tests run it as the
// user's client command; it opens authorization URLs through $BROWSER.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/conform-mcp/conform/harness/fakeclient"
)

func main() {
	var o fakeclient.Options
	var breaks string
	flag.StringVar(&o.Pack, "pack", fakeclient.Authorization, "the client rules to follow: mcp-authorization or source")
	flag.StringVar(&o.URL, "url", "", "the MCP endpoint")
	flag.StringVar(&o.StateDir, "state", "", "where to keep client IDs and tokens between runs")
	flag.StringVar(&o.Tool, "tool", "", "a tool to call (tools/list when empty)")
	flag.StringVar(&o.Args, "args", "", "the tool's arguments, a JSON object")
	flag.StringVar(&o.ClientID, "client-id", "", "a client registered beforehand, used instead of registering")
	flag.StringVar(&o.ClientSecret, "client-secret", "", "the secret of -client-id, when it is confidential")
	flag.StringVar(&o.MetadataURL, "client-metadata-url", "", "a client ID metadata document to name the client by, where the authorization server supports them")
	flag.StringVar(&o.Revision, "revision", "", "the one MCP revision to speak, never falling back (negotiated when empty)")
	flag.StringVar(&breaks, "break", "", "departures to make, separated by commas")
	flag.Parse()
	for _, b := range strings.Split(breaks, ",") {
		if b = strings.TrimSpace(b); b != "" {
			o.Breaks = append(o.Breaks, fakeclient.Break(b))
		}
	}
	o.Browser = os.Getenv("BROWSER")
	o.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := fakeclient.Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "fakeclient:", err)
		stop()
		os.Exit(1)
	}
}
