// SPDX-License-Identifier: LGPL-2.1-or-later
#include "smbcontext_p.h"

#include "smb_debug.h"

#include <QtGlobal>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace Qvfs::Smb
{

namespace
{

constexpr int TimeoutMs = 20000; // below the pool's 30 s for a silent worker

void copyInto(char *buffer, int size, const QByteArray &value)
{
    if (size <= 0)
        return;
    const int n = qMin(int(value.size()), size - 1);
    std::memcpy(buffer, value.constData(), size_t(n));
    buffer[n] = '\0';
}

} // namespace

Context::Context() = default;

Context::~Context()
{
    if (m_ctx)
        smbc_free_context(m_ctx, 1);
}

bool Context::init(std::function<Login(const char *, const char *)> loginFor)
{
    m_loginFor = std::move(loginFor);
    SMBCCTX *ctx = smbc_new_context();
    if (!ctx)
        return false;
    smbc_setOptionUserData(ctx, this);
    smbc_setFunctionAuthDataWithContext(ctx, &Context::authenticate);
    smbc_setTimeout(ctx, TimeoutMs);
    smbc_setDebug(ctx, 0);
    smbc_setOptionDebugToStderr(ctx, 1);
    smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
    smbc_setOptionUseKerberos(ctx, 0);
    smbc_setOptionFallbackAfterKerberos(ctx, 1);
    smbc_setOptionUseCCache(ctx, 0);
    smbc_setOptionFullTimeNames(ctx, 1);
    smbc_setOptionCaseSensitive(ctx, 1);
    // The library reads $HOME/.smb/smb.conf once, when the first context starts: not here.
    const QByteArray home = qgetenv("HOME");
    const bool hadHome = qEnvironmentVariableIsSet("HOME");
    qunsetenv("HOME");
    SMBCCTX *ready = smbc_init_context(ctx);
    const int err = errno;
    if (hadHome)
        qputenv("HOME", home);
    if (!ready) {
        smbc_free_context(ctx, 1);
        errno = err;
        return false;
    }
    m_ctx = ready;
    const QByteArray conf = qgetenv("QVFS_SMB_CONF");
    if (!conf.isEmpty() && smbc_setConfiguration(m_ctx, conf.constData()) != 0)
        qCWarning(QVFS_SMB) << "cannot read the configuration" << conf;
    // After the configuration, which may name protocols of its own.
    if (!smbc_setOptionProtocols(m_ctx, "SMB2_02", "SMB3"))
        qCWarning(QVFS_SMB) << "cannot restrict the protocols to SMB2 and SMB3";
    return true;
}

void Context::setPort(int port)
{
    if (m_ctx)
        smbc_setPort(m_ctx, quint16(qMax(port, 0)));
}

void Context::purge()
{
    if (m_ctx)
        smbc_getFunctionPurgeCachedServers(m_ctx)(m_ctx);
}

void Context::authenticate(
    SMBCCTX *c, const char *srv, const char *shr, char *wg, int wglen, char *un, int unlen, char *pw, int pwlen)
{
    auto *self = static_cast<Context *>(smbc_getOptionUserData(c));
    if (!self || !self->m_loginFor)
        return;
    self->m_asked = true;
    const Login login = self->m_loginFor(srv, shr);
    if (!login.domain.isEmpty())
        copyInto(wg, wglen, login.domain);
    copyInto(un, unlen, login.user);
    copyInto(pw, pwlen, login.password);
}

bool Context::writeAll(SMBCFILE *file, const char *data, qint64 size)
{
    for (qint64 at = 0; at < size;) {
        const ssize_t n = smbc_getFunctionWrite(m_ctx)(m_ctx, file, data + at, size_t(size - at));
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        at += n;
    }
    return true;
}

QByteArray Context::libraryUrl(const QUrl &url)
{
    QByteArray out = "smb://";
    const QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
    if (host.contains(':'))
        out += '[' + host + ']';
    else
        out += host;
    // Every byte but the unreserved ones and '/' percent-encoded: libsmbclient decodes it.
    out += QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1()).toPercentEncoding("/");
    return out;
}

} // namespace Qvfs::Smb
