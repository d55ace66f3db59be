package svc

import "strings"

// templatePath is path with its id segments replaced by ":id" (/v1/orders/123/items ->
// /v1/orders/:id/items): the operation of a request no router named, so that one endpoint is one
// operation, not one per id. The same segments count as ids as in the other SDKs: digits, a UUID,
// 12 or more hex digits, or a prefixed id such as usr_k3vkzzr97hszmn14 (2-8 letters, _ or -, 8 or
// more letters and digits). A path without ids is returned as it is, without allocating.
func templatePath(path string) string {
	if !hasIDSegment(path) {
		return path
	}
	var b strings.Builder
	b.Grow(len(path))
	writeTemplatedPath(&b, path)
	return b.String()
}

// operationOf is parts joined, then path with its ids templated, in one allocation: a span's name
// is made on every request.
func operationOf(path string, parts ...string) string {
	n := len(path)
	for _, p := range parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p)
	}
	writeTemplatedPath(&b, path)
	return b.String()
}

func writeTemplatedPath(b *strings.Builder, path string) {
	for first := true; ; first = false {
		if !first {
			b.WriteByte('/')
		}
		i := strings.IndexByte(path, '/')
		segment := path
		if i >= 0 {
			segment = path[:i]
		}
		if isIDSegment(segment) {
			b.WriteString(":id")
		} else {
			b.WriteString(segment)
		}
		if i < 0 {
			return
		}
		path = path[i+1:]
	}
}

func hasIDSegment(path string) bool {
	for len(path) > 0 {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return isIDSegment(path)
		}
		if isIDSegment(path[:i]) {
			return true
		}
		path = path[i+1:]
	}
	return false
}

func isIDSegment(s string) bool {
	if s == "" {
		return false
	}
	return allOf(s, isDigit) || isUUID(s) || (len(s) >= 12 && allOf(s, isHexDigit)) || isPrefixedID(s)
}

func isPrefixedID(s string) bool {
	i := strings.IndexAny(s, "_-")
	if i < 2 || i > 8 || len(s)-i-1 < 8 {
		return false
	}
	return allOf(s[:i], isLetter) && allOf(s[i+1:], func(c byte) bool { return isLetter(c) || isDigit(c) })
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func allOf(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isLetter(c byte) bool   { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isHexDigit(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }
