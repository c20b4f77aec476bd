package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

type fsOptionsKey struct{}

// addFileSystemFlag adds the persistent --fs-option flag to root: every command opening a table
// passes the options to pkft.WithFileSystemOptions (the S3 endpoint, credentials, ...).
func addFileSystemFlag(root *cobra.Command) {
	var raw []string
	root.PersistentFlags().StringArrayVar(&raw, "fs-option", nil,
		"file-system option KEY=VALUE of the table's file system (repeatable): for s3:// and s3a:// tables "+
			"s3.endpoint, s3.region, s3.access-key, s3.secret-key, s3.session.token, s3.path.style.access, "+
			"s3.multipart.size, s3.conditional-writes; the AWS_* environment variables apply too")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if len(raw) == 0 {
			return nil
		}
		opts := map[string]string{}
		for _, kv := range raw {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usageError{fmt.Errorf("--fs-option %q: want KEY=VALUE", kv)}
			}
			if _, dup := opts[k]; dup {
				return usageError{fmt.Errorf("--fs-option %s given twice", k)}
			}
			opts[k] = v
		}
		cmd.SetContext(context.WithValue(cmd.Context(), fsOptionsKey{}, opts))
		return nil
	}
}

// fsOptions returns the open options the --fs-option flags give.
func fsOptions(ctx context.Context) []pkft.OpenOption {
	opts, _ := ctx.Value(fsOptionsKey{}).(map[string]string)
	if len(opts) == 0 {
		return nil
	}
	return []pkft.OpenOption{pkft.WithFileSystemOptions(opts)}
}
