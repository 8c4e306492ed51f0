package lease

import "fmt"

// enumName returns names[v], or a numbered placeholder for unknown values.
func enumName[T ~uint8](v T, names []string, kind string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, uint8(v))
}

// enumParse is the inverse of enumName for known values.
func enumParse[T ~uint8](text []byte, names []string, kind string) (T, error) {
	s := string(text)
	for i, name := range names {
		if name != "" && name == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("lease: unknown %s %q", kind, s)
}
