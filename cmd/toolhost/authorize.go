package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/role"
)

// authorizeCommand stands in for the host's owner at its authorization
// endpoint, without a browser, and prints where the host redirected: what
// conform's profile key oauth.authorization_approval_command expects.
//
//	authorization_approval_command: "toolhost authorize --data ./data --target {target} {authorization_url}"
//
// It finds the owner secret as approve does, and refuses without one. The
// authorization URL comes from a client, so the secret goes only to --target,
// the host the operator named: an authorization URL on another origin is
// refused, and so is plain http to a host that is not loopback.
func authorizeCommand(stdout io.Writer) *cobra.Command {
	var base, data, roleName string
	cmd := &cobra.Command{
		Use:   "authorize --data DIR --target URL AUTHORIZATION_URL",
		Short: "Approve an authorization request as the host's owner and print the redirect",
		Long: `Open an authorization request (GET /oauth/authorize?...) on a running host as
its owner, approve it on the consent page with --role (by default the role the
page offers first, the narrowest that grants the scope asked for, as a person
who reads the page would), and print the URL the
host redirected to: the client's redirect URI with a code, or with an error
when the host refused the request. The owner secret is sent only to --target:
an authorization URL on another origin is refused, and so is plain http to a
host that is not loopback. The owner secret comes from the file
` + owner.FileName + ` in the host's data directory when --data is given,
otherwise from ` + owner.EnvVar + ` when set, otherwise from ./data/` + owner.FileName + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if roleName == "" {
				u, err := url.Parse(args[0])
				if err != nil {
					return fmt.Errorf("authorize: the authorization URL: %w", err)
				}
				roleName = role.ForScope(u.Query().Get("scope"))
			}
			secret, err := ownerSecret(cmd, data, roleName)
			if err != nil {
				return fmt.Errorf("authorize: %w", err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			loc, err := oauth.ApproveAuthorization(ctx, &http.Client{}, base, args[0], secret, roleName)
			if err != nil {
				return fmt.Errorf("authorize: %w", err)
			}
			_, err = fmt.Fprintln(stdout, loc)
			return err
		},
	}
	cmd.Flags().StringVar(&base, "target", "http://127.0.0.1:8080", "base URL of the host; the authorization URL must be on its origin")
	cmd.Flags().StringVar(&data, "data", "data", "the host's data directory, which holds the owner secret")
	cmd.Flags().StringVar(&roleName, "role", "", "role to grant: owner, admin, member or guest (default: the narrowest that grants the scope asked for, which the consent page offers first)")
	return cmd
}
