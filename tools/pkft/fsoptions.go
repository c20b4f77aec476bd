package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paimon-pkft/pkft"
)

// rootOptions are the open options the root's persistent flags give every command.
type rootOptions struct {
	// fs are the --fs-option file-system options.
	fs map[string]string
	// engineLib is the --engine-lib path, empty when not given.
	engineLib string
}

type rootOptionsKey struct{}

// engineLibHelp describes --engine-lib and where the engine is looked for without it (pflag
// takes the word in backquotes for the flag's value).
const engineLibHelp = "the full-text engine `PATH`: libpaimon_ftindex_ffi.so of the paimon-ftindex wheel, or its directory " +
	"(only there, when given); without it pkft looks in PAIMON_FTINDEX_LIB_PATH, then in the paimon_ftindex package " +
	"of the python3 (else python) on PATH (" + pkft.EngineInstallCommand + "), then in .cache/native of a pkft " +
	"clone (make native); pkft version shows which one is found"

// addFileSystemFlag adds the persistent flags of every command opening a table: --fs-option,
// passed to pkft.WithFileSystemOptions (the S3 endpoint, credentials, ...), and --engine-lib,
// passed to pkft.WithEngineLibrary.
func addFileSystemFlag(root *cobra.Command) {
	var raw []string
	var engineLib string
	root.PersistentFlags().StringArrayVar(&raw, "fs-option", nil,
		"file-system option `KEY=VALUE` of the table's file system (repeatable): for s3:// and s3a:// tables "+
			"s3.endpoint, s3.region, s3.access-key, s3.secret-key, s3.session.token, s3.path.style.access, "+
			"s3.multipart.size, s3.conditional-writes; the AWS_* environment variables apply too")
	root.PersistentFlags().StringVar(&engineLib, "engine-lib", "", engineLibHelp)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if len(raw) == 0 && engineLib == "" {
			return nil
		}
		opts := rootOptions{engineLib: engineLib}
		for _, kv := range raw {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usageError{fmt.Errorf("--fs-option %q: want KEY=VALUE", kv)}
			}
			if opts.fs == nil {
				opts.fs = map[string]string{}
			}
			if _, dup := opts.fs[k]; dup {
				return usageError{fmt.Errorf("--fs-option %s given twice", k)}
			}
			opts.fs[k] = v
		}
		cmd.SetContext(context.WithValue(cmd.Context(), rootOptionsKey{}, opts))
		return nil
	}
}

// fsOptions returns the open options the root's persistent flags give: the --fs-option
// file-system options and the --engine-lib engine library.
func fsOptions(ctx context.Context) []pkft.OpenOption {
	opts, _ := ctx.Value(rootOptionsKey{}).(rootOptions)
	var out []pkft.OpenOption
	if len(opts.fs) > 0 {
		out = append(out, pkft.WithFileSystemOptions(opts.fs))
	}
	if opts.engineLib != "" {
		out = append(out, pkft.WithEngineLibrary(opts.engineLib))
	}
	return out
}
