package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Tx is a transaction over the store, handed to the functions given to View
// and Update. Writing methods fail in a View.
type Tx struct {
	tx *bolt.Tx
	// wrote is set by every method that changes a record. A transaction
	// that changed none is rolled back rather than committed (Store.Update),
	// since bbolt's commit writes its meta and freelist pages even then.
	wrote bool
	// pending are the journalled registrations not yet in the data file
	// (journal.go); folded says this transaction put them there.
	pending map[string]Client
	folded  bool
}

// Client returns the registration with the given client_id, from the data
// file or the registration journal.
func (t *Tx) Client(id string) (Client, bool, error) {
	c, found, err := get[Client](t.tx, bucketClients, []byte(id))
	if err != nil || found {
		return c, found, err
	}
	c, found = t.pending[id]
	return c, found, nil
}

// PutClient stores c under c.ID.
func (t *Tx) PutClient(c Client) error { return t.put(bucketClients, []byte(c.ID), c) }

// DeleteClient removes the registration with the given client_id. It first
// folds the journal into the data file, so that what it deletes stays deleted.
func (t *Tx) DeleteClient(id string) error {
	if err := t.fold(); err != nil {
		return err
	}
	return t.del(bucketClients, []byte(id))
}

// Clients calls fn for every registration. In a read-write transaction it
// first folds the journal into the data file; in a read-only one it reads
// the journal's registrations after the file's.
func (t *Tx) Clients(fn func(Client) error) error {
	if t.tx.Writable() {
		if err := t.fold(); err != nil {
			return err
		}
	}
	if err := each(t.tx, bucketClients, func(_ []byte, c Client) error { return fn(c) }); err != nil {
		return err
	}
	for id, c := range t.pending {
		if t.tx.Bucket(bucketClients).Get([]byte(id)) == nil {
			if err := fn(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeviceCode returns the device authorization whose device_code has digest d.
func (t *Tx) DeviceCode(d Digest) (DeviceCode, bool, error) {
	return get[DeviceCode](t.tx, bucketDeviceCodes, d[:])
}

// DeviceCodeByUserCode returns the device authorization with the given
// user_code, and the digest of its device_code.
func (t *Tx) DeviceCodeByUserCode(userCode string) (Digest, DeviceCode, bool, error) {
	var d Digest
	k := t.tx.Bucket(bucketUserCodes).Get([]byte(userCode))
	if len(k) != len(d) {
		return d, DeviceCode{}, false, nil
	}
	copy(d[:], k)
	c, ok, err := t.DeviceCode(d)
	return d, c, ok, err
}

// PutDeviceCode stores c under d, indexed by its user code. It refuses a
// user code already taken by another device code, so two authorizations can
// never share one.
func (t *Tx) PutDeviceCode(d Digest, c DeviceCode) error {
	idx := t.tx.Bucket(bucketUserCodes)
	if k := idx.Get([]byte(c.UserCode)); k != nil && string(k) != string(d[:]) {
		return fmt.Errorf("put device code: %w", ErrUserCodeTaken)
	}
	t.wrote = true
	if err := idx.Put([]byte(c.UserCode), d[:]); err != nil {
		return err
	}
	return t.put(bucketDeviceCodes, d[:], c)
}

// DeleteDeviceCode removes the device authorization under d and its index entry.
func (t *Tx) DeleteDeviceCode(d Digest) error {
	c, ok, err := t.DeviceCode(d)
	if err != nil || !ok {
		return err
	}
	if err := t.del(bucketUserCodes, []byte(c.UserCode)); err != nil {
		return err
	}
	return t.del(bucketDeviceCodes, d[:])
}

// DeviceCodes calls fn for every device authorization.
func (t *Tx) DeviceCodes(fn func(Digest, DeviceCode) error) error {
	return each(t.tx, bucketDeviceCodes, func(k []byte, c DeviceCode) error { return fn(digest(k), c) })
}

// AuthCode returns the authorization code with digest d.
func (t *Tx) AuthCode(d Digest) (AuthCode, bool, error) {
	return get[AuthCode](t.tx, bucketAuthCodes, d[:])
}

// PutAuthCode stores c under d.
func (t *Tx) PutAuthCode(d Digest, c AuthCode) error { return t.put(bucketAuthCodes, d[:], c) }

// DeleteAuthCode removes the authorization code under d.
func (t *Tx) DeleteAuthCode(d Digest) error { return t.del(bucketAuthCodes, d[:]) }

// AuthCodes calls fn for every authorization code.
func (t *Tx) AuthCodes(fn func(Digest, AuthCode) error) error {
	return each(t.tx, bucketAuthCodes, func(k []byte, c AuthCode) error { return fn(digest(k), c) })
}

// Credential returns the credential with digest d.
func (t *Tx) Credential(d Digest) (Credential, bool, error) {
	return get[Credential](t.tx, bucketCredentials, d[:])
}

// PutCredential stores c under d.
func (t *Tx) PutCredential(d Digest, c Credential) error {
	return t.put(bucketCredentials, d[:], c)
}

// DeleteCredential revokes the credential under d.
func (t *Tx) DeleteCredential(d Digest) error { return t.del(bucketCredentials, d[:]) }

// Credentials calls fn for every credential.
func (t *Tx) Credentials(fn func(Digest, Credential) error) error {
	return each(t.tx, bucketCredentials, func(k []byte, c Credential) error { return fn(digest(k), c) })
}

// RefreshToken returns the refresh token with digest d.
func (t *Tx) RefreshToken(d Digest) (RefreshToken, bool, error) {
	return get[RefreshToken](t.tx, bucketRefreshTokens, d[:])
}

// PutRefreshToken stores r under d.
func (t *Tx) PutRefreshToken(d Digest, r RefreshToken) error {
	return t.put(bucketRefreshTokens, d[:], r)
}

// DeleteRefreshToken revokes the refresh token under d.
func (t *Tx) DeleteRefreshToken(d Digest) error {
	return t.del(bucketRefreshTokens, d[:])
}

// RefreshTokens calls fn for every refresh token.
func (t *Tx) RefreshTokens(fn func(Digest, RefreshToken) error) error {
	return each(t.tx, bucketRefreshTokens, func(k []byte, r RefreshToken) error { return fn(digest(k), r) })
}

func digest(k []byte) Digest {
	var d Digest
	copy(d[:], k)
	return d
}

func get[T any](tx *bolt.Tx, bucket, key []byte) (T, bool, error) {
	var v T
	raw := tx.Bucket(bucket).Get(key)
	if raw == nil {
		return v, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false, fmt.Errorf("decode %s record: %w", bucket, err)
	}
	return v, true, nil
}

func (t *Tx) put(bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", bucket, err)
	}
	t.wrote = true
	return t.tx.Bucket(bucket).Put(key, raw)
}

// del removes key from bucket; a key that is not there changes nothing.
func (t *Tx) del(bucket, key []byte) error {
	b := t.tx.Bucket(bucket)
	if b.Get(key) == nil {
		return nil
	}
	t.wrote = true
	return b.Delete(key)
}

// each decodes every record of bucket in key order. fn must not change the
// bucket; collect keys and change them after each returns.
func each[T any](tx *bolt.Tx, bucket []byte, fn func([]byte, T) error) error {
	return tx.Bucket(bucket).ForEach(func(k, raw []byte) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("decode %s record: %w", bucket, err)
		}
		return fn(k, v)
	})
}
