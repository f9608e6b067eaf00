/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef QVFS_URLSYNTAX_P_H
#define QVFS_URLSYNTAX_P_H

/*
 * Whether a command-line argument is written as a URL rather than a path. Plain C: used by
 * Url::fromUserInput() and by the `qvfs` launcher, which must not load Qt. Internal.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * True for "file:" followed by anything (case-insensitive) and for SCHEME "://" anything,
 * where SCHEME is an ASCII letter and then letters, digits, '+', '-' or '.'. Anything
 * else ("a:b", "./x:y", "/tmp") is a path. \a s has \a n bytes, not necessarily NUL-ended.
 */
static inline int qvfs_looks_like_url(const char *s, size_t n)
{
    static const char file[] = "file:";
    size_t i = 0;
    if (n >= 5) {
        for (i = 0; i < 5 && (i < 4 ? (s[i] | 0x20) : s[i]) == file[i]; ++i) { }
        if (i == 5)
            return 1;
    }
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (i = 1; i < n; ++i) {
        const char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-'
                || c == '.'))
            break;
    }
    return n - i >= 3 && s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/';
}

#ifdef __cplusplus
}
#endif

#endif
