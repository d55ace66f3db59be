package svc

import (
	"errors"
	"net/url"
	"strings"
)

// Target is where and as whom the exporter sends: what the ingest key's DSN holds.
type Target struct {
	// Endpoint is the core's base URL without the project path, e.g. http://localhost:8080.
	Endpoint  string
	KeyID     string
	Secret    string
	ProjectID string
}

var errDSN = errors.New("svc: DSN must look like http://<key_id>:<secret>@<host>:<port>/<project_id>")

// ParseDSN reads http(s)://<key_id>:<secret>@<host>:<port>/<project_id>, the form an ingest key
// comes with. Anything else is an error at once: a typo must not turn into silently lost data.
func ParseDSN(dsn string) (Target, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User == nil {
		return Target{}, errDSN
	}
	secret, hasSecret := u.User.Password()
	project := strings.Trim(u.Path, "/")
	if u.User.Username() == "" || !hasSecret || secret == "" || project == "" || strings.Contains(project, "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return Target{}, errDSN
	}
	return Target{
		Endpoint:  u.Scheme + "://" + u.Host,
		KeyID:     u.User.Username(),
		Secret:    secret,
		ProjectID: project,
	}, nil
}
