// Command corpus-bundle writes the fixture bundle of pkft's golden corpus (package
// compat/bundle): make corpus-bundle runs
//
//	go run ./compat/bundle/cmd/corpus-bundle -version VERSION -out DIR
//
// from the repository root and prints the path of DIR/pkft-corpus-VERSION.tar.gz.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/paimon-pkft/pkft/compat/bundle"
	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
)

func main() {
	version := flag.String("version", "", "the bundle's version (its file name and manifest carry it)")
	out := flag.String("out", "compat/report", "the directory the bundle is written to")
	flag.Parse()
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "corpus-bundle:", err)
		os.Exit(1)
	}
}

func run(version, out string) error {
	if flag.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	root, err := goldengen.RepoRoot()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	path, m, err := bundle.WriteFile(ctx, root, version, out)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d tables\n", path, len(m.Tables))
	return nil
}
