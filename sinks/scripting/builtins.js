// Helpers for user scripts, evaluated once in every fresh sandbox context before the user script.
// This file is one expression: a setup function that installs the frozen global `svc`, pins the clock to
// the time the host passed in, and returns the driver the host calls with the compiled user script.
// Documented for users in docs/scripting.md.
(function svcSetup(env) {
  'use strict';

  // Captured before any user code runs, so a script that overwrites globals only changes its own view.
  const jsonStringify = JSON.stringify;
  const isArray = Array.isArray;
  const fnToString = Function.prototype.toString;
  const reflectApply = Reflect.apply;
  const fromCharCode = String.fromCharCode;
  const encodeUriComponent = encodeURIComponent;
  const decodeUriComponent = decodeURIComponent;
  const escapeLatin1 = escape;
  const unescapeLatin1 = unescape;
  const RealDate = Date;

  const K = new Int32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  function requireString(value, fn, what) {
    if (typeof value !== 'string') throw new TypeError('svc.' + fn + ': ' + what + ' must be a string');
    return value;
  }

  // Strings below are "binary strings": one char per byte (0..255), the cheapest byte container here.
  function utf8Encode(s) {
    if (!/[^\x00-\x7f]/.test(s)) return s;
    try {
      return unescapeLatin1(encodeUriComponent(s));
    } catch (e) {
      return utf8EncodeLoneSurrogates(s);
    }
  }

  // Only reached for strings with lone surrogates, which become U+FFFD like TextEncoder does.
  function utf8EncodeLoneSurrogates(s) {
    let out = '';
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          out += unescapeLatin1(encodeUriComponent(s[i] + s[i + 1]));
          i++;
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      out += unescapeLatin1(encodeUriComponent(fromCharCode(c)));
    }
    return out;
  }

  function utf8Decode(bin) {
    try {
      return decodeUriComponent(escapeLatin1(bin));
    } catch (e) {
      return utf8DecodeLenient(bin);
    }
  }

  // Invalid sequences become U+FFFD, one per offending byte.
  function utf8DecodeLenient(bin) {
    let out = '';
    for (let i = 0; i < bin.length; ) {
      const b = bin.charCodeAt(i);
      const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
      if (n > 0) {
        try {
          out += decodeUriComponent(escapeLatin1(bin.substr(i, n)));
          i += n;
          continue;
        } catch (e) {
          // fall through to the replacement character
        }
      }
      out += '\ufffd';
      i++;
    }
    return out;
  }

  function sha256(bin) {
    const n = bin.length;
    const total = (((n + 8) >> 6) + 1) << 4;
    const M = new Int32Array(total);
    const full = n & ~3;
    let i = 0;
    let j = 0;
    for (; i < full; i += 4) {
      M[j++] = (bin.charCodeAt(i) << 24) | (bin.charCodeAt(i + 1) << 16) | (bin.charCodeAt(i + 2) << 8) | bin.charCodeAt(i + 3);
    }
    for (; i < n; i++) M[i >> 2] |= bin.charCodeAt(i) << (24 - (i & 3) * 8);
    M[n >> 2] |= 0x80 << (24 - (n & 3) * 8);
    M[total - 1] = (n * 8) | 0;
    M[total - 2] = Math.floor(n / 0x20000000);
    const W = new Int32Array(64);
    const H = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    for (let off = 0; off < total; off += 16) {
      let t, x, y;
      for (t = 0; t < 16; t++) W[t] = M[off + t];
      for (t = 16; t < 64; t++) {
        x = W[t - 15];
        y = W[t - 2];
        W[t] = ((((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
          (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + W[t - 7] + W[t - 16]) | 0;
      }
      let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
      for (t = 0; t < 64; t++) {
        const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
        const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
      H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
    }
    let out = '';
    for (let k = 0; k < 8; k++) out += fromCharCode((H[k] >>> 24) & 255, (H[k] >>> 16) & 255, (H[k] >>> 8) & 255, H[k] & 255);
    return out;
  }

  function hmacSha256(keyBin, msgBin) {
    let key = keyBin.length > 64 ? sha256(keyBin) : keyBin;
    let ipad = '';
    let opad = '';
    for (let i = 0; i < 64; i++) {
      const k = i < key.length ? key.charCodeAt(i) : 0;
      ipad += fromCharCode(k ^ 0x36);
      opad += fromCharCode(k ^ 0x5c);
    }
    return sha256(opad + sha256(ipad + msgBin));
  }

  function binToHex(bin) {
    let out = '';
    for (let i = 0; i < bin.length; i++) out += (bin.charCodeAt(i) | 0x100).toString(16).slice(1);
    return out;
  }

  function hexToBin(hex) {
    let out = '';
    for (let i = 0; i < hex.length; i += 2) out += fromCharCode(parseInt(hex.substr(i, 2), 16));
    return out;
  }

  function binToBase64(bin) {
    let out = '';
    let i = 0;
    for (; i + 2 < bin.length; i += 3) {
      const v = (bin.charCodeAt(i) << 16) | (bin.charCodeAt(i + 1) << 8) | bin.charCodeAt(i + 2);
      out += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    }
    const rest = bin.length - i;
    if (rest > 0) {
      const v = (bin.charCodeAt(i) << 16) | (rest > 1 ? bin.charCodeAt(i + 1) << 8 : 0);
      out += B64[v >> 18] + B64[(v >> 12) & 63] + (rest > 1 ? B64[(v >> 6) & 63] : '=') + '=';
    }
    return out;
  }

  function base64ToBin(text) {
    const s = text.replace(/[\t\n\r ]/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/={1,2}$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw new TypeError('svc.base64Decode: input is not valid base64');
    let out = '';
    let bits = 0;
    let acc = 0;
    for (let i = 0; i < s.length; i++) {
      acc = (acc << 6) | B64.indexOf(s[i]);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((acc >> bits) & 255);
      }
    }
    return out;
  }

  // Digests of long strings are handed to the host, which computes them natively and runs the script
  // again with the answers; the interpreter hashes only about 2 MB/s. Until the answer is known the
  // script sees a placeholder of the right shape, and the host ignores the outcome of that run.
  // A message that is a string argument (the body) with text before or after it travels as
  // [prefix, argumentName, suffix], so a large body is not copied back and forth.
  const memo = new Map();
  const pending = [];
  const pendingKeys = [];
  const memoId = (op, key, msg) => op + ':' + key.length + ':' + key + msg;
  const messageOf = (spec) => (typeof spec === 'string' ? spec : spec[0] + env.args[spec[1]] + spec[2]);
  const largeArgs = env.argNames.filter((name) => typeof env.args[name] === 'string' && env.args[name].length >= 256);
  for (const [op, key, spec, hex] of env.memo) memo.set(memoId(op, key, messageOf(spec)), hex);

  function describeMessage(msg) {
    for (const name of largeArgs) {
      const arg = env.args[name];
      if (msg.length < arg.length) continue;
      if (msg.endsWith(arg)) return [msg.slice(0, msg.length - arg.length), name, ''];
      if (msg.startsWith(arg)) return ['', name, msg.slice(arg.length)];
    }
    return msg;
  }

  function digestBin(op, key, msg) {
    if (key.length + msg.length >= env.deferMinChars) {
      if (memo.size > 0) {
        const known = memo.get(memoId(op, key, msg));
        if (known !== undefined) return hexToBin(known);
      }
      if (env.defer) {
        const seen = pendingKeys.some(([o, k, m]) => o === op && k === key && m === msg);
        if (!seen && pending.length < 8) {
          pendingKeys.push([op, key, msg]);
          pending.push([op, key, describeMessage(msg)]);
        }
        return '\0'.repeat(32);
      }
    }
    return op === 'sha256' ? sha256(utf8Encode(msg)) : hmacSha256(utf8Encode(key), utf8Encode(msg));
  }

  const nowMs = Math.floor(env.nowMs);

  const svc = Object.freeze({
    sha256Hex: (s) => binToHex(digestBin('sha256', '', requireString(s, 'sha256Hex', 'input'))),
    sha256Base64: (s) => binToBase64(digestBin('sha256', '', requireString(s, 'sha256Base64', 'input'))),
    hmacSha256Hex: (key, message) =>
      binToHex(digestBin('hmac', requireString(key, 'hmacSha256Hex', 'key'), requireString(message, 'hmacSha256Hex', 'message'))),
    hmacSha256Base64: (key, message) =>
      binToBase64(digestBin('hmac', requireString(key, 'hmacSha256Base64', 'key'), requireString(message, 'hmacSha256Base64', 'message'))),
    timingSafeEqual: (a, b) => {
      if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
      return diff === 0;
    },
    base64Encode: (s) => binToBase64(utf8Encode(requireString(s, 'base64Encode', 'input'))),
    base64Decode: (s) => utf8Decode(base64ToBin(requireString(s, 'base64Decode', 'input'))),
    nowSeconds: () => Math.floor(nowMs / 1000),
    header: (headers, name) => {
      if (headers === null || typeof headers !== 'object') return undefined;
      const wanted = String(name).toLowerCase();
      if (typeof headers[name] === 'string') return headers[name];
      for (const key of Object.keys(headers)) {
        if (key.toLowerCase() === wanted) return headers[key];
      }
      return undefined;
    },
  });
  Object.defineProperty(globalThis, 'svc', { value: svc, writable: false, enumerable: false, configurable: false });

  // Scripts get the host's notion of "now" and no other clock: Date without arguments and Date.now() answer
  // with the pinned time, and the engine's benchmarking clock is removed.
  function PinnedDate(...args) {
    if (new.target === undefined) return new RealDate(nowMs).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [nowMs] : args, new.target);
  }
  PinnedDate.prototype = RealDate.prototype;
  PinnedDate.now = () => nowMs;
  PinnedDate.parse = RealDate.parse;
  PinnedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: PinnedDate, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'Date', { value: PinnedDate, writable: true, enumerable: false, configurable: true });
  delete globalThis.__date_clock;

  function typeOfResult(value) {
    if (value === null) return 'null';
    if (isArray(value)) return 'array';
    if (typeof value === 'object' && typeof value.then === 'function') return 'promise';
    return typeof value;
  }

  const argValues = env.argNames.map((name) => env.args[name]);

  // Called by the host with the compiled script. `sourceLength` is the length of the function source the
  // host wrapped; a different length means the script closed the wrapper early, which is refused.
  return function svcDrive(fn, sourceLength, checkOnly) {
    if (typeof fn !== 'function' || reflectApply(fnToString, fn, []).length !== sourceLength) {
      return '{"status":"malformed"}';
    }
    if (checkOnly) return '{"status":"compiled"}';
    let value;
    try {
      value = reflectApply(fn, undefined, argValues);
    } catch (e) {
      if (pending.length > 0) return jsonStringify({ status: 'needs', requests: pending });
      if (e === null || e === undefined) throw new Error('svc: the script threw ' + e);
      throw e;
    }
    if (pending.length > 0) return jsonStringify({ status: 'needs', requests: pending });
    const type = typeOfResult(value);
    let json;
    try {
      json = jsonStringify(value);
    } catch (e) {
      return jsonStringify({ status: 'unserializable', type: type, message: String(e && e.message) });
    }
    return '{"status":"ok","type":' + jsonStringify(type) + (json === undefined ? '' : ',"value":' + json) + '}';
  };
});
