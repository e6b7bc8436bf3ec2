// Command toolhost is the reference tool host: MCP at {base}/mcp behind the
// four gates, the OAuth endpoints, and the discovery documents, over a
// persistent store.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/host"
	"github.com/conform-mcp/conform/impl/oauth"
)

func main() {
	if err := command(os.Stdout, os.Stderr).ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "toolhost:", err)
		os.Exit(1)
	}
}

func command(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "toolhost",
		Short:         "The reference agent-facing tool host",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	var configFile, addr, data string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP, OAuth and discovery until interrupted",
		Long: `Serve the reference host. With no --config, an embedded default serves a
small demo tree: /public (opened by a networkRead rule), /base (closed),
/overlay (a writable overlay) and /overlay/readonly (an overlay whose
provider cannot write). State persists under --data.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serveHost(ctx, configFile, addr, data, stdout, stderr)
		},
	}
	serve.Flags().StringVar(&configFile, "config", "", "configuration file (YAML); the embedded default when empty")
	serve.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	serve.Flags().StringVar(&data, "data", "data", "data directory: the store and the overlay's files")
	root.AddCommand(serve, approveCommand())
	return root
}

// approveCommand approves a pending device sign-in without a browser, for CI
// and for conform's profile key oauth.device_approval_command:
//
//	device_approval_command: "toolhost approve --target {target} {user_code}"
func approveCommand() *cobra.Command {
	var base, role string
	cmd := &cobra.Command{
		Use:   "approve --target URL USER_CODE",
		Short: "Approve a pending device sign-in on a running host's consent page",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			return oauth.ApproveDevice(ctx, &http.Client{}, base, args[0], role)
		},
	}
	cmd.Flags().StringVar(&base, "target", "http://127.0.0.1:8080", "base URL of the host")
	cmd.Flags().StringVar(&role, "role", "owner", "role to grant: owner, admin, member or guest")
	return cmd
}

func serveHost(ctx context.Context, configFile, addr, data string, stdout, stderr io.Writer) error {
	cfg, err := config.Default()
	if configFile != "" {
		cfg, err = config.Load(configFile)
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	h, err := host.Open(cfg, host.OpenOptions{DataDir: data, Logger: logger})
	if err != nil {
		return err
	}
	defer h.Close()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "toolhost serving http://%s/mcp (data in %s)\n", ln.Addr(), data)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
