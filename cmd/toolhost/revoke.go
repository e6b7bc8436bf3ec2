package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/role"
)

// revokeCommand revokes a credential or refresh token on a running host as
// its owner (RFC 7009), for an operator who finds a token leaked: the host
// keeps only digests, so the token itself is what names it.
func revokeCommand(stdout io.Writer) *cobra.Command {
	var base, data string
	cmd := &cobra.Command{
		Use:   "revoke --data DIR --target URL TOKEN|-",
		Short: "Revoke a credential or refresh token as the host's owner",
		Long: `Revoke a credential (access token) or refresh token on a running host, as
its owner, at the host's revocation endpoint (RFC 7009). A refresh token takes
every credential of its grant with it. A token the host does not know is
reported revoked, as the endpoint answers. The owner secret is found as
approve finds it: the file ` + owner.FileName + ` in the host's data directory when
--data is given, otherwise ` + owner.EnvVar + ` when set, otherwise
./data/` + owner.FileName + `. It is sent only to --target: plain http to a host
that is not loopback is refused, and no redirect is followed.

TOKEN "-" reads the token from standard input, which keeps it out of the
process list and the shell's history.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := ownerSecret(cmd, data, role.Owner)
			if err != nil {
				return fmt.Errorf("revoke: %w", err)
			}
			token := args[0]
			if token == "-" {
				raw, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 64<<10))
				if err != nil {
					return fmt.Errorf("revoke: read the token from standard input: %w", err)
				}
				if token = strings.TrimSpace(string(raw)); token == "" {
					return fmt.Errorf("revoke: no token on standard input")
				}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			if err := oauth.RevokeAsOwner(ctx, &http.Client{}, base, secret, token); err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "revoked on %s\n", base)
			return err
		},
	}
	cmd.Flags().StringVar(&base, "target", "http://127.0.0.1:8080", "base URL of the host")
	cmd.Flags().StringVar(&data, "data", "data", "the host's data directory, which holds the owner secret")
	return cmd
}
