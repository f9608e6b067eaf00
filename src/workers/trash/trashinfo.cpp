// SPDX-License-Identifier: LGPL-2.1-or-later
#include "trashinfo_p.h"
#include "url_p.h"

namespace Qvfs::Trash
{

namespace
{
bool keptAsIs(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
        || c == '_' || c == '~' || c == '/';
}

QByteArrayView trimmed(QByteArrayView line)
{
    while (!line.isEmpty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '\r'))
        line = line.sliced(1);
    while (!line.isEmpty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
        line.chop(1);
    return line;
}
} // namespace

QByteArray encodePath(QByteArrayView path)
{
    static const char hex[] = "0123456789ABCDEF";
    QByteArray out;
    out.reserve(path.size() + path.size() / 2);
    for (char c : path) {
        if (keptAsIs(c)) {
            out += c;
        } else {
            const auto u = uchar(c);
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 0xf];
        }
    }
    return out;
}

bool decodePath(QByteArrayView encoded, QByteArray *path)
{
    QByteArray out;
    out.reserve(encoded.size());
    for (qsizetype i = 0; i < encoded.size(); ++i) {
        char c = encoded[i];
        if (c == '%') {
            if (i + 2 >= encoded.size())
                return false;
            const int hi = Url::Detail::hexDigit(encoded[i + 1]);
            const int lo = Url::Detail::hexDigit(encoded[i + 2]);
            if (hi < 0 || lo < 0)
                return false;
            c = char(hi * 16 + lo);
            i += 2;
        }
        if (c == 0)
            return false;
        out += c;
    }
    if (out.isEmpty())
        return false;
    *path = std::move(out);
    return true;
}

bool parseInfo(QByteArrayView content, Info *info)
{
    bool inGroup = false;
    bool sawGroup = false;
    bool havePath = false;
    Info result;
    while (!content.isEmpty()) {
        const qsizetype nl = content.indexOf('\n');
        const QByteArrayView line = trimmed(nl < 0 ? content : content.first(nl));
        content = nl < 0 ? QByteArrayView() : content.sliced(nl + 1);
        if (line.isEmpty() || line.front() == '#')
            continue;
        if (line.front() == '[') {
            if (!sawGroup && line != "[Trash Info]")
                return false; // the spec's group comes first
            sawGroup = true;
            inGroup = line == "[Trash Info]";
            continue;
        }
        if (!sawGroup)
            return false;
        if (!inGroup)
            continue;
        const qsizetype eq = line.indexOf('=');
        if (eq <= 0)
            continue;
        const QByteArrayView key = trimmed(line.first(eq));
        const QByteArrayView value = trimmed(line.sliced(eq + 1));
        if (key == "Path" && !havePath) {
            if (!decodePath(value, &result.path))
                return false;
            havePath = true;
        } else if (key == "DeletionDate" && result.deletionTime < 0) {
            const QDateTime when = QDateTime::fromString(QString::fromLatin1(value), Qt::ISODate);
            if (when.isValid())
                result.deletionTime = when.toSecsSinceEpoch();
        }
    }
    if (!havePath)
        return false;
    *info = std::move(result);
    return true;
}

QByteArray formatInfo(QByteArrayView path, const QDateTime &when)
{
    QByteArray out = "[Trash Info]\nPath=";
    out += encodePath(path);
    out += "\nDeletionDate=";
    out += when.toLocalTime().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")).toLatin1();
    out += '\n';
    return out;
}

} // namespace Qvfs::Trash
