package server

import (
	"crypto/subtle"

	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// authProvider decides who may connect. With no users configured anyone may,
// with any password. Otherwise a configured user must give its password
// (mysql_native_password; go-mysql asks a client that starts with another
// plugin, such as MySQL 8's caching_sha2_password, to switch), and an unknown
// user is denied like a wrong password: error 1045, never 1449.
type authProvider struct {
	users  map[string]string
	native gms.DefaultAuthenticationProvider
}

// credential is what go-mysql compares the client's answer with. Every user is
// "found" so that go-mysql never answers 1449 (no such user): Authenticate
// denies unknown users itself.
func (p *authProvider) credential(user string) gms.Credential {
	pw, ok := p.users[user]
	if !ok {
		pw = "\x00" // a password no client can send; Authenticate denies first anyway
	}
	if len(p.users) == 0 {
		pw = ""
	}
	return gms.Credential{Passwords: []string{pw}, AuthPluginName: mysql.AUTH_NATIVE_PASSWORD}
}

// Validate accepts mysql_native_password only.
func (p *authProvider) Validate(plugin string) bool { return plugin == mysql.AUTH_NATIVE_PASSWORD }

// Authenticate checks the client's scrambled password.
func (p *authProvider) Authenticate(c *gms.Conn, plugin string, authData []byte) error {
	if len(p.users) == 0 {
		return nil
	}
	if _, ok := p.users[c.GetUser()]; !ok || plugin != mysql.AUTH_NATIVE_PASSWORD {
		if len(authData) == 0 || len(authData) == 1 && authData[0] == 0 {
			return gms.ErrAccessDeniedNoPassword
		}
		return gms.ErrAccessDenied
	}
	return p.native.Authenticate(c, plugin, authData)
}

// checkBasic reports whether an HTTP Basic user and password are allowed.
func (p *authProvider) checkBasic(user, password string, ok bool) bool {
	if len(p.users) == 0 {
		return true
	}
	want, known := p.users[user]
	if !ok || !known {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(password)) == 1
}
