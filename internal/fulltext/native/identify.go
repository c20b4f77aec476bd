package native

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Identity is what can be told of a library file without loading it. The engine's C ABI
// (include/paimon_ftindex.h of apache/paimon-full-text 0.1.0) has no version function, so the
// version comes from the wheel the file was installed with, or from its sha256.
type Identity struct {
	// SHA256 is the file's sha256, in hex.
	SHA256 string
	// Version is the paimon-ftindex version of the file, "" when unknown: the version the
	// metadata of the wheel installed with it names (a pip install, or make native's unpacked
	// wheel), else the version of the official wheel whose library it is.
	Version string
	// VersionFrom is where Version comes from: the wheel's METADATA file, or "sha256".
	VersionFrom string
	// Official names the official wheel whose library the file is, byte for byte; empty when it
	// is none pkft knows (another build, or another platform's wheel).
	Official string
}

// officialWheel is the official paimon-ftindex wheel whose libpaimon_ftindex_ffi.so has the
// given sha256 (in hex), and its version; empty when pkft knows none.
func officialWheel(sum string) (wheel, version string) {
	switch sum {
	case "8b9b7bf6db3d0e473acb57efb7368b823fcf7c72c297f268eb7df28fb82150e3":
		// The RECORD of the wheel scripts/paimon-ftindex.sha256 pins lists this file as
		// sha256=i5t79ts9Dkc6y1fvtzaLgj_PfHLCl_Jo633yj7ghUOM.
		return "paimon_ftindex-0.1.0-py3-none-manylinux_2_28_x86_64.whl", "0.1.0"
	}
	return "", ""
}

// Identify reads the library file at path: its sha256, and its version from the wheel metadata
// next to it (a pip-installed paimon_ftindex package's dist-info, or make native's unpacked
// wheel) or from its sha256.
func Identify(ctx context.Context, path string) (Identity, error) {
	sum, err := fileSHA256(ctx, path)
	if err != nil {
		return Identity{}, err
	}
	id := Identity{SHA256: hex.EncodeToString(sum)}
	official, version := officialWheel(id.SHA256)
	id.Official = official
	if v, from := wheelMetadataVersion(path, sum); v != "" {
		id.Version, id.VersionFrom = v, from
	} else if version != "" {
		id.Version, id.VersionFrom = version, "sha256"
	}
	return id, nil
}

func fileSHA256(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the engine library: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("read the engine library %s: %w", path, err)
	}
	return h.Sum(nil), nil
}

// wheelMetadataVersion is the Version of the paimon-ftindex dist-info installed with the library
// at path, and that METADATA file: the dist-info beside the paimon_ftindex package directory
// holding the library (site-packages), or in the wheel/ directory beside it (make native's
// cache). A dist-info whose RECORD lists the library with sum is preferred; empty when none.
func wheelMetadataVersion(path string, sum []byte) (version, from string) {
	dir := filepath.Dir(path)
	var roots []string
	if filepath.Base(dir) == PythonPackage {
		roots = append(roots, filepath.Dir(dir))
	}
	roots = append(roots, filepath.Join(dir, "wheel"))
	record := PythonPackage + "/" + LibName + ",sha256=" + base64.RawURLEncoding.EncodeToString(sum) + ","
	for _, root := range roots {
		infos, _ := filepath.Glob(filepath.Join(root, "paimon_ftindex-*.dist-info"))
		slices.Sort(infos)
		for _, info := range infos {
			v := metadataVersion(filepath.Join(info, "METADATA"))
			if v == "" {
				continue
			}
			if version == "" {
				version, from = v, filepath.Join(info, "METADATA")
			}
			if b, err := os.ReadFile(filepath.Join(info, "RECORD")); err == nil && strings.Contains(string(b), record) {
				return v, filepath.Join(info, "METADATA")
			}
		}
		if version != "" {
			return version, from
		}
	}
	return "", ""
}

// metadataVersion is the Version header of a wheel's METADATA file, empty when unreadable.
func metadataVersion(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break // the headers end at the first empty line
		}
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
