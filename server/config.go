package server

import (
	"crypto/tls"
	"log/slog"
	"time"
)

// Config are the settings of a Server. Start from DefaultConfig; a zero field
// takes its default in New.
type Config struct {
	// Version is glint's version; the MySQL handshake announces
	// "8.0.36-glint-<Version>". Default "dev".
	Version string

	// Users maps user names to passwords. Empty (the default): any user name is
	// accepted without a password. Otherwise MySQL clients authenticate with
	// mysql_native_password and HTTP clients with Basic authentication.
	Users map[string]string

	// TLS, when set, is offered on the MySQL listener (clients choose it with
	// --ssl / ssl-mode=REQUIRED; users then authenticate with MySQL 8's
	// caching_sha2_password, mysql_native_password still accepted) and the
	// HTTP listener serves HTTPS only.
	TLS *tls.Config
	// RequireTLS refuses a password sent over a MySQL connection that is not
	// TLS: error 3159, before the password is checked. It needs TLS and
	// Users.
	RequireTLS bool

	// MaxAllowedPacket is the largest packet (logical, after joining 16 MiB
	// pieces) a MySQL client may send; a larger one gets error 1153 and the
	// connection is closed. Default 64 MiB; at least 1024 (as in MySQL).
	MaxAllowedPacket int

	// MaxPreparedStmts caps the prepared statements open on one connection.
	// Default 1024.
	MaxPreparedStmts int

	// HandshakeTimeout bounds the whole MySQL handshake. Default 10 s.
	HandshakeTimeout time.Duration
	// IdleTimeout closes a MySQL connection that sends no command for this
	// long (MySQL's wait_timeout). Default 8 h.
	IdleTimeout time.Duration
	// ReadTimeout bounds each read inside a packet that has started (MySQL's
	// net_read_timeout). Default 30 s.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write to a client (MySQL's net_write_timeout).
	// Default 60 s.
	WriteTimeout time.Duration

	// MaxConnections caps the MySQL connections open at once (those in
	// their handshake included); the one past it gets error 1040 "Too many
	// connections" instead of the handshake and is closed, and the others go
	// on. Default 1000.
	MaxConnections int

	// MaxHTTPBody caps the body of an HTTP request; a larger one gets 413.
	// Default 32 MiB.
	MaxHTTPBody int64

	// HTTPHeaderTimeout bounds reading a request's headers, so that a client
	// that sends them a byte at a time (slowloris) cannot hold a connection.
	// Default 10 s.
	HTTPHeaderTimeout time.Duration
	// HTTPReadTimeout bounds reading a whole request, body included.
	// Default 60 s.
	HTTPReadTimeout time.Duration
	// HTTPIdleTimeout closes a kept-alive HTTP connection that sends no new
	// request for this long. Default 5 min.
	HTTPIdleTimeout time.Duration

	// Logger receives connection errors and recovered panics. Default
	// slog.Default().
	Logger *slog.Logger
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Version:           "dev",
		MaxAllowedPacket:  64 << 20,
		MaxPreparedStmts:  1024,
		HandshakeTimeout:  10 * time.Second,
		IdleTimeout:       8 * time.Hour,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		MaxConnections:    1000,
		MaxHTTPBody:       32 << 20,
		HTTPHeaderTimeout: 10 * time.Second,
		HTTPReadTimeout:   60 * time.Second,
		HTTPIdleTimeout:   5 * time.Minute,
	}
}

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Version == "" {
		c.Version = d.Version
	}
	if c.MaxAllowedPacket <= 0 {
		c.MaxAllowedPacket = d.MaxAllowedPacket
	}
	c.MaxAllowedPacket = max(c.MaxAllowedPacket, 1024)
	if c.MaxPreparedStmts <= 0 {
		c.MaxPreparedStmts = d.MaxPreparedStmts
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = d.HandshakeTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = d.IdleTimeout
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = d.ReadTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = d.WriteTimeout
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = d.MaxConnections
	}
	if c.MaxHTTPBody <= 0 {
		c.MaxHTTPBody = d.MaxHTTPBody
	}
	if c.HTTPHeaderTimeout <= 0 {
		c.HTTPHeaderTimeout = d.HTTPHeaderTimeout
	}
	if c.HTTPReadTimeout <= 0 {
		c.HTTPReadTimeout = d.HTTPReadTimeout
	}
	if c.HTTPIdleTimeout <= 0 {
		c.HTTPIdleTimeout = d.HTTPIdleTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// mysqlVersion is the version string of the handshake and @@version.
func (c Config) mysqlVersion() string { return "8.0.36-glint-" + c.Version }
