package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/conform-mcp/conform/impl/oauth"
	"github.com/conform-mcp/conform/impl/owner"
	"github.com/conform-mcp/conform/impl/owner/strength"
	"github.com/conform-mcp/conform/impl/role"
)

// approveCommand approves a pending device sign-in as the host's owner,
// without a browser, for CI and for conform's profile key
// oauth.device_approval_command:
//
//	device_approval_command: "toolhost approve --data ./data --target {target} {user_code}"
//
// It signs in with the owner secret from the data directory's owner-secret
// file (or TOOLHOST_OWNER_SECRET when no --data is given), and refuses
// without one. The secret goes only to --target, as authorize sends it:
// https unless the host is loopback, and no redirect followed.
func approveCommand() *cobra.Command {
	var base, data, roleName string
	cmd := &cobra.Command{
		Use:   "approve --data DIR --target URL USER_CODE",
		Short: "Approve a pending device sign-in as the host's owner",
		Long: `Approve a pending device sign-in on a running host's consent page, as its
owner. The owner secret comes from the file ` + owner.FileName + ` in the
host's data directory when --data is given, otherwise from ` + owner.EnvVar + `
when set, otherwise from ./data/` + owner.FileName + `. The secret is sent
only to --target: plain http to a host that is not loopback is refused, and
no redirect is followed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := ownerSecret(cmd, data, roleName)
			if err != nil {
				return fmt.Errorf("approve: %w", err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			if err := oauth.ApproveDevice(ctx, &http.Client{}, base, secret, args[0], roleName); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "approved %s as %s on %s\n", args[0], roleName, base)
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "target", "http://127.0.0.1:8080", "base URL of the host")
	cmd.Flags().StringVar(&data, "data", "data", "the host's data directory, which holds the owner secret")
	cmd.Flags().StringVar(&roleName, "role", role.Owner, "role to grant: owner, admin, member or guest")
	return cmd
}

// ownerSecretNote tells the operator where the owner secret is.
func ownerSecretNote(data string) string {
	if os.Getenv(owner.EnvVar) != "" {
		return "owner secret from " + owner.EnvVar
	}
	return "owner secret in " + filepath.Join(data, owner.FileName) + " (approve sign-ins with it)"
}

// ownerSecret checks the role to grant and finds the owner secret to act
// with, for approve and authorize alike: an explicit --data names the host
// to act for; otherwise the environment variable, then the default data
// directory.
func ownerSecret(cmd *cobra.Command, data, roleName string) (string, error) {
	if !role.Known(roleName) {
		return "", fmt.Errorf("--role %q: choose owner, admin, member or guest", roleName)
	}
	given := os.Getenv(owner.EnvVar)
	if cmd.Flags().Changed("data") {
		given = ""
	}
	return owner.Read(data, given, strength.Check)
}
