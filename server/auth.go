package server

import (
	"crypto/subtle"
	"crypto/tls"

	"github.com/go-mysql-org/go-mysql/mysql"
	gms "github.com/go-mysql-org/go-mysql/server"
)

// authProvider decides who may connect. With no users configured anyone may,
// with any password. Otherwise a configured user must give its password and
// an unknown user is denied like a wrong password: error 1045, never 1449.
// Without TLS the method is mysql_native_password; with TLS it is
// caching_sha2_password (go-mysql asks a client that starts with the other
// one to switch), and with requireTLS a password on a plain connection is
// refused before it is checked.
type authProvider struct {
	users      map[string]string
	tls        bool
	requireTLS bool
	methods    gms.DefaultAuthenticationProvider
}

// method is the authentication method users are asked for.
func (p *authProvider) method() string {
	if p.tls {
		return mysql.AUTH_CACHING_SHA2_PASSWORD
	}
	return mysql.AUTH_NATIVE_PASSWORD
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
	return gms.Credential{Passwords: []string{pw}, AuthPluginName: p.method()}
}

// Validate accepts the method users are asked for.
func (p *authProvider) Validate(plugin string) bool { return plugin == p.method() }

// errSecureTransport is MySQL's error 3159, worded for glint.
var errSecureTransport = mysql.NewError(3159,
	"this server takes passwords over TLS only: connect with TLS (mysql --ssl, or --ssl-mode=REQUIRED)")

// Authenticate checks the client's answer: a scrambled password, or in
// caching_sha2_password's full authentication the password itself (in clear
// inside TLS, RSA-encrypted outside it).
func (p *authProvider) Authenticate(c *gms.Conn, plugin string, authData []byte) error {
	if len(p.users) == 0 {
		return nil
	}
	if p.requireTLS && !onTLS(c) {
		return errSecureTransport
	}
	if _, ok := p.users[c.GetUser()]; !ok || plugin != p.method() {
		if len(authData) == 0 || len(authData) == 1 && authData[0] == 0 {
			return gms.ErrAccessDeniedNoPassword
		}
		return gms.ErrAccessDenied
	}
	return p.methods.Authenticate(c, plugin, authData)
}

// onTLS reports whether c's client switched to TLS in the handshake.
func onTLS(c *gms.Conn) bool {
	_, ok := c.Conn.Conn.(*tls.Conn)
	return ok
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
