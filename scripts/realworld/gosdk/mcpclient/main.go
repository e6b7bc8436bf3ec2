// Command mcpclient is a one-shot MCP client built on the Go SDK's OAuth
// support (auth.AuthorizationCodeHandler with dynamic client registration),
// for scripts/realclients to judge with conform's client half: it lists the
// server's tools, or calls one, signing in when the server asks, and exits
// 0 only when its call succeeded (a result with isError true is a failure).
//
// It listens for the redirect on a loopback port of its own, opens the
// authorization URL with $BROWSER when set (as a desktop client would) and
// prints it too. It keeps nothing between starts: the SDK's handler holds
// its token in memory, so each start signs in anew.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func main() {
	url := flag.String("url", "", "the MCP endpoint")
	tool := flag.String("tool", "", "a tool to call (tools/list when empty)")
	args := flag.String("args", "{}", "the tool's arguments, a JSON object")
	flag.Parse()
	if err := run(*url, *tool, *args); err != nil {
		fmt.Fprintln(os.Stderr, "mcpclient:", err)
		os.Exit(1)
	}
}

func run(endpoint, tool, args string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the redirect: %w", err)
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	results := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		select {
		case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
		fmt.Fprintln(w, "Signed in; you may close this window.")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	fetch := func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		fmt.Println("Open this URL to sign in:", a.URL)
		if b := os.Getenv("BROWSER"); b != "" {
			if err := exec.CommandContext(ctx, b, a.URL).Run(); err != nil {
				fmt.Fprintln(os.Stderr, "mcpclient: $BROWSER:", err)
			}
		}
		select {
		case r := <-results:
			return r, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:   "conform realclients go-sdk driver",
			RedirectURIs: []string{redirect},
			GrantTypes:   []string{"authorization_code", "refresh_token"},
		}},
	})
	if err != nil {
		return fmt.Errorf("make the OAuth handler: %w", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "conform-gosdk-driver", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: handler}, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	if tool == "" {
		tools, err := session.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range tools.Tools {
			fmt.Println("tool:", t.Name)
		}
		return nil
	}
	var arguments map[string]any
	if err := json.Unmarshal([]byte(args), &arguments); err != nil {
		return fmt.Errorf("the tool's arguments are no JSON object: %w", err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	out, _ := json.Marshal(res.Content)
	fmt.Println("result:", string(out))
	if res.IsError {
		return errors.New("the tool call failed (isError true)")
	}
	return nil
}
