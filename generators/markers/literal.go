package markers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ParseLiteral decodes a value written in controller-tools' marker syntax,
// as +kubebuilder:default and +kubebuilder:example take it besides JSON:
// `{a,b}` or `a;b` for a list, `{key: value, ...}` for a map (`{}` is an
// empty map), "quoted" or `raw` strings, true/false, numbers, and bare
// strings. The result has JSON's shapes: string, json.Number, bool, []any,
// map[string]any.
func ParseLiteral(text string) (any, error) {
	return parseLiteral(strings.TrimSpace(text), 0)
}

// maxLiteralDepth bounds the nesting of {...} in a literal.
const maxLiteralDepth = 32

func parseLiteral(t string, depth int) (any, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("literal nests deeper than %d", maxLiteralDepth)
	}
	if t == "" {
		return nil, fmt.Errorf("empty value")
	}
	if strings.HasPrefix(t, "{") {
		if !strings.HasSuffix(t, "}") {
			return nil, fmt.Errorf("unterminated {...} in %q", t)
		}
		inner := strings.TrimSpace(t[1 : len(t)-1])
		if inner == "" {
			return map[string]any{}, nil
		}
		parts, err := splitTop(inner, ',')
		if err != nil {
			return nil, err
		}
		if _, _, isMap, err := cutTop(parts[0], ':'); err != nil {
			return nil, err
		} else if isMap {
			return literalMap(parts, depth)
		}
		return literalList(parts, depth)
	}
	parts, err := splitTop(t, ';')
	if err != nil {
		return nil, err
	}
	if len(parts) > 1 {
		return literalList(parts, depth)
	}
	return literalScalar(t)
}

func literalList(parts []string, depth int) ([]any, error) {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("empty item in a list")
		}
		v, err := parseLiteral(p, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func literalMap(parts []string, depth int) (map[string]any, error) {
	out := make(map[string]any, len(parts))
	for _, p := range parts {
		k, v, ok, err := cutTop(p, ':')
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("map entry %q is not key: value", strings.TrimSpace(p))
		}
		key, err := unquote(k)
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, fmt.Errorf("map entry %q has an empty key", strings.TrimSpace(p))
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("map key %q given twice", key)
		}
		val, err := parseLiteral(strings.TrimSpace(v), depth+1)
		if err != nil {
			return nil, fmt.Errorf("map key %q: %w", key, err)
		}
		out[key] = val
	}
	return out, nil
}

func literalScalar(t string) (any, error) {
	switch {
	case strings.HasPrefix(t, `"`), strings.HasPrefix(t, "`"):
		return unquote(t)
	case t == "true":
		return true, nil
	case t == "false":
		return false, nil
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil && json.Valid([]byte(t)) {
		return json.Number(t), nil
	}
	return t, nil
}

// cutTop cuts s at the first sep outside quotes, backquotes and braces.
func cutTop(s string, sep byte) (before, after string, found bool, err error) {
	parts, err := splitTop(s, sep)
	if err != nil {
		return "", "", false, err
	}
	if len(parts) == 1 {
		return s, "", false, nil
	}
	return parts[0], s[len(parts[0])+1:], true, nil
}
