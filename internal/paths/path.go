// Package paths is the table layout and file naming of Apache Paimon 2.0.0:
// where schemas, snapshots, manifests, index files and data files live, how
// partition directories are escaped, and how new file names are generated.
//
// Paths are plain strings in the textual form Java's org.apache.paimon.fs.Path
// prints (Path.toString): that form is what Paimon records in metadata (for
// example the external path of an index file), so Go must produce the same
// text.
package paths

import "strings"

// splitURI separates "scheme:" and "//authority" from the path part of a path
// string, following Java Path(String): a scheme is present only when a colon
// comes before the first slash.
func splitURI(p string) (scheme, authority, rest string, hasAuthority bool) {
	start := 0
	colon := strings.IndexByte(p, ':')
	slash := strings.IndexByte(p, '/')
	if colon >= 0 && (slash < 0 || colon < slash) {
		scheme = p[:colon]
		start = colon + 1
	}
	if strings.HasPrefix(p[start:], "//") && len(p)-start > 2 {
		next := strings.IndexByte(p[start+2:], '/')
		end := len(p)
		if next >= 0 {
			end = start + 2 + next
		}
		authority = p[start+2 : end]
		hasAuthority = true
		start = end
	}
	return scheme, authority, p[start:], hasAuthority
}

// normalizePathPart collapses repeated slashes and trims a trailing slash
// from a non-root path, as Java Path.normalizePath does.
func normalizePathPart(p string) string {
	if strings.Contains(p, "//") {
		var b strings.Builder
		b.Grow(len(p))
		prevSlash := false
		for i := 0; i < len(p); i++ {
			c := p[i]
			if c == '/' && prevSlash {
				continue
			}
			prevSlash = c == '/'
			b.WriteByte(c)
		}
		p = b.String()
	}
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

// Normalize returns p in the form Java's Path.toString prints for new
// Path(p): duplicate slashes collapsed, a trailing slash removed, and an empty
// authority dropped ("file:///tmp/t" becomes "file:/tmp/t"). Dot segments are
// not resolved; Paimon never generates them.
func Normalize(p string) string {
	scheme, authority, rest, _ := splitURI(p)
	var b strings.Builder
	if scheme != "" {
		b.WriteString(scheme)
		b.WriteByte(':')
	}
	if authority != "" {
		b.WriteString("//")
		b.WriteString(authority)
	}
	b.WriteString(normalizePathPart(rest))
	return b.String()
}

// Join appends relative path elements to parent with "/" and normalizes the
// result, like Java's new Path(parent, child) for relative children. Empty
// elements are skipped.
func Join(parent string, elems ...string) string {
	var b strings.Builder
	b.WriteString(parent)
	for _, e := range elems {
		if e == "" {
			continue
		}
		b.WriteByte('/')
		b.WriteString(e)
	}
	return Normalize(b.String())
}

// Name returns the last component of p (Java Path.getName).
func Name(p string) string {
	_, _, rest, _ := splitURI(p)
	rest = normalizePathPart(rest)
	return rest[strings.LastIndexByte(rest, '/')+1:]
}

// Parent returns p without its last component, or "" when p has none.
func Parent(p string) string {
	p = Normalize(p)
	scheme, authority, rest, _ := splitURI(p)
	i := strings.LastIndexByte(rest, '/')
	if i < 0 || rest == "/" {
		return ""
	}
	parent := rest[:i]
	if i == 0 {
		parent = "/"
	}
	var b strings.Builder
	if scheme != "" {
		b.WriteString(scheme)
		b.WriteByte(':')
	}
	if authority != "" {
		b.WriteString("//")
		b.WriteString(authority)
	}
	b.WriteString(parent)
	return b.String()
}

// Scheme returns the URI scheme of p, or "" when it has none.
func Scheme(p string) string {
	scheme, _, _, _ := splitURI(p)
	return scheme
}
