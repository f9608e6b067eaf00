// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ASKPASSPROTOCOL_P_H
#define QVFS_ASKPASSPROTOCOL_P_H

// What qvfs-sftp-askpass and the session say to each other over the askpass socket.
// Header-only and free of Qt: the relay is a tiny program.
//
// ssh runs  qvfs-sftp-askpass PROMPT  (with SSH_ASKPASS_PROMPT set to "confirm" or
// "none" for some prompts). The relay connects to the Unix socket named by
// QVFS_SFTP_ASKPASS_SOCKET (in the session's 0700 runtime folder) and sends
//     "QVFSASK1" | u32 n | token | u32 n | hint | u32 n | prompt      (big-endian u32)
// where token is QVFS_SFTP_ASKPASS_TOKEN. The session checks the peer's uid and the
// token, asks, and answers
//     u8 status (1: answered, 0: refused) | u32 n | answer
// The relay prints the answer and a newline and exits 0, or exits 1 when refused or on
// any error (ssh then treats the prompt as unanswered).

#include <cstdint>
#include <cstring>

namespace Qvfs::Sftp::Askpass
{

constexpr char Magic[8] = { 'Q', 'V', 'F', 'S', 'A', 'S', 'K', '1' };
constexpr const char *SocketVariable = "QVFS_SFTP_ASKPASS_SOCKET";
constexpr const char *TokenVariable = "QVFS_SFTP_ASKPASS_TOKEN";
constexpr uint32_t MaxToken = 64;
constexpr uint32_t MaxHint = 64;
constexpr uint32_t MaxPrompt = 16 * 1024;
/*! ssh reads at most 1023 bytes of an askpass answer. */
constexpr uint32_t MaxAnswer = 1023;

inline void putU32(unsigned char *p, uint32_t v)
{
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

inline uint32_t getU32(const unsigned char *p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

} // namespace Qvfs::Sftp::Askpass

#endif
