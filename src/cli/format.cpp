// SPDX-License-Identifier: LGPL-2.1-or-later
#include "format.h"

#include <QChar>
#include <QCoreApplication>
#include <QLocale>
#include <QVarLengthArray>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <cwchar>
#include <iterator>
#include <sys/ioctl.h>
#include <unistd.h>

namespace Cli
{

namespace
{

/*! Decodes one UTF-8 sequence at \a i; returns its length, or 0 when the byte starts none. */
int decodeUtf8(QByteArrayView s, qsizetype i, char32_t *cp)
{
    const auto b0 = uchar(s.at(i));
    if (b0 < 0x80) {
        *cp = b0;
        return 1;
    }
    int len;
    char32_t c;
    char32_t min;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        len = 2;
        c = b0 & 0x1f;
        min = 0x80;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        len = 3;
        c = b0 & 0x0f;
        min = 0x800;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        len = 4;
        c = b0 & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (int k = 1; k < len; ++k) {
        const auto b = uchar(s.at(i + k));
        if ((b & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (b & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

void appendOctal(QByteArray &out, uchar b)
{
    switch (b) {
    case '\a':
        out += "\\a";
        return;
    case '\b':
        out += "\\b";
        return;
    case '\t':
        out += "\\t";
        return;
    case '\n':
        out += "\\n";
        return;
    case '\v':
        out += "\\v";
        return;
    case '\f':
        out += "\\f";
        return;
    case '\r':
        out += "\\r";
        return;
    default:
        break;
    }
    out += '\\';
    out += char('0' + ((b >> 6) & 7));
    out += char('0' + ((b >> 3) & 7));
    out += char('0' + (b & 7));
}

// The character classes of coreutils' quotearg, shell-escape style.
enum CharClass : uchar { Plain, Special, CompatSpecial, Escape };

/*! The class of the character at \a i of \a name; its length in *len (1 for a byte that is not UTF-8). */
CharClass classify(QByteArrayView name, qsizetype i, int *len)
{
    char32_t cp = 0;
    *len = decodeUtf8(name, i, &cp);
    if (*len == 0) {
        *len = 1;
        return Escape;
    }
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && !QChar::isPrint(cp)))
        return Escape;
    if (cp >= 0x80)
        return Plain;
    switch (char(cp)) {
    case '#':
    case '~':
        return i == 0 ? CompatSpecial : Plain;
    case ' ':
    case '\'':
        return CompatSpecial;
    case '!':
    case '"':
    case '$':
    case '&':
    case '(':
    case ')':
    case '*':
    case ';':
    case '<':
    case '=':
    case '>':
    case '?':
    case '[':
    case '\\':
    case '^':
    case '`':
    case '|':
        return Special;
    default:
        return Plain;
    }
}

} // namespace

bool needsShellEscape(QByteArrayView name)
{
    for (qsizetype i = 0; i < name.size();) {
        // Fast path: plain ASCII letters, digits and punctuation that need nothing.
        const auto c = uchar(name.at(i));
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
            || c == '_' || c == '/' || c == '+' || c == ',' || c == ':' || c == '@' || c == '%') {
            ++i;
            continue;
        }
        int len = 0;
        if (classify(name, i, &len) != Plain)
            return true;
        i += len;
    }
    return false;
}

bool hasControlOrInvalid(QByteArrayView text)
{
    for (qsizetype i = 0; i < text.size();) {
        int len = 0;
        if (classify(text, i, &len) == Escape)
            return true;
        i += len;
    }
    return false;
}

QByteArray shellEscape(QByteArrayView name, QuoteStyle style)
{
    // Pass 1: what does the name need?
    bool needQuotes = false;
    bool allCompat = true;
    bool singleQuote = false;
    QVarLengthArray<uchar, 256> classes;
    QVarLengthArray<uchar, 256> lengths;
    for (qsizetype i = 0; i < name.size();) {
        int len = 0;
        const CharClass cls = classify(name, i, &len);
        if (cls != Plain)
            needQuotes = true;
        if (cls == Special || cls == Escape)
            allCompat = false;
        if (cls == CompatSpecial && name.at(i) == '\'')
            singleQuote = true;
        classes.append(cls);
        lengths.append(uchar(len));
        i += len;
    }
    QByteArray out;
    if (!needQuotes) {
        if (style == QuoteStyle::IfNeeded)
            return name.toByteArray();
        out.reserve(name.size() + 2);
        out += '\'';
        out.append(name.data(), name.size());
        out += '\'';
        return out;
    }
    out.reserve(name.size() + 8);
    if (singleQuote && allCompat) {
        // "it's here": nothing inside needs a backslash between double quotes.
        out += '"';
        out.append(name.data(), name.size());
        out += '"';
        return out;
    }
    out += '\'';
    bool inEscape = false;
    qsizetype pos = 0;
    for (qsizetype k = 0; k < classes.size(); ++k) {
        const QByteArrayView piece = name.sliced(pos, lengths.at(k));
        pos += lengths.at(k);
        if (classes.at(k) == Escape) {
            if (!inEscape) {
                out += "'$'";
                inEscape = true;
            }
            for (char b : piece)
                appendOctal(out, uchar(b));
            continue;
        }
        if (inEscape) {
            out += "''";
            inEscape = false;
        }
        if (piece.size() == 1 && piece.at(0) == '\'')
            out += "'\\''";
        else
            out.append(piece.data(), piece.size());
    }
    out += '\'';
    return out;
}

int displayWidth(QByteArrayView text)
{
    int width = 0;
    for (qsizetype i = 0; i < text.size();) {
        char32_t cp;
        int len = decodeUtf8(text, i, &cp);
        if (len == 0) {
            ++width;
            ++i;
            continue;
        }
        i += len;
        if (cp < 0x80) {
            ++width;
            continue;
        }
        const int w = ::wcwidth(wchar_t(cp));
        width += w < 0 ? 1 : w;
    }
    return width;
}

namespace
{

// What the CLI calls each file type: ls's mode letter, the JSON type name, stat's description.
struct FileTypeNames
{
    char modeLetter;
    const char *json;
    const char *description;
};

// By FileType's value.
constexpr FileTypeNames fileTypeNames[] = {
    { '?', "unknown", QT_TRANSLATE_NOOP("qvfs", "unknown type") },
    { '-', "file", QT_TRANSLATE_NOOP("qvfs", "regular file") },
    { 'd', "dir", QT_TRANSLATE_NOOP("qvfs", "directory") },
    { 'l', "symlink", QT_TRANSLATE_NOOP("qvfs", "symbolic link") },
    { 'c', "chardev", QT_TRANSLATE_NOOP("qvfs", "character special file") },
    { 'b', "blockdev", QT_TRANSLATE_NOOP("qvfs", "block special file") },
    { 'p', "fifo", QT_TRANSLATE_NOOP("qvfs", "fifo") },
    { 's', "socket", QT_TRANSLATE_NOOP("qvfs", "socket") },
};
static_assert(std::size(fileTypeNames) == size_t(Qvfs::FileType::Socket) + 1);

const FileTypeNames &namesOf(Qvfs::FileType type)
{
    const auto i = size_t(type);
    return fileTypeNames[i < std::size(fileTypeNames) ? i : size_t(Qvfs::FileType::Unknown)];
}

} // namespace

QByteArray modeString(Qvfs::FileType type, qint64 mode)
{
    QByteArray s(10, '-');
    s[0] = namesOf(type).modeLetter;
    if (mode < 0) {
        for (int i = 1; i < 10; ++i)
            s[i] = '?';
        return s;
    }
    const char rwx[] = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i) {
        if (mode & (0400 >> i))
            s[i + 1] = rwx[i];
    }
    if (mode & 04000)
        s[3] = (mode & 0100) ? 's' : 'S';
    if (mode & 02000)
        s[6] = (mode & 010) ? 's' : 'S';
    if (mode & 01000)
        s[9] = (mode & 01) ? 't' : 'T';
    return s;
}

QByteArray lsDate(qint64 seconds, qint64 now)
{
    // The locale's abbreviated month names, padded to one width (as coreutils does).
    static QByteArray months[12];
    static bool ready = false;
    if (!ready) {
        int widest = 0;
        for (int m = 0; m < 12; ++m) {
            struct tm t = {};
            t.tm_mon = m;
            t.tm_mday = 1;
            t.tm_year = 100;
            char buf[64];
            const size_t n = std::strftime(buf, sizeof buf, "%b", &t);
            months[m] = QByteArray(buf, qsizetype(n));
            widest = qMax(widest, displayWidth(months[m]));
        }
        for (QByteArray &m : months)
            m += QByteArray(widest - displayWidth(m), ' ');
        ready = true;
    }
    const time_t t = time_t(seconds);
    struct tm tm;
    if (!::localtime_r(&t, &tm))
        return QByteArray::number(seconds);
    // Recent: within the past six months (half of 365.2425 days) and not in the future.
    const qint64 sixMonths = 31556952 / 2;
    const bool recent = seconds > now - sixMonths && seconds <= now;
    char buf[64];
    if (recent)
        std::snprintf(buf, sizeof buf, " %2d %02d:%02d", tm.tm_mday, tm.tm_hour, tm.tm_min);
    else
        std::snprintf(buf, sizeof buf, " %2d  %d", tm.tm_mday, tm.tm_year + 1900);
    return months[tm.tm_mon] + buf;
}

QByteArray statDate(qint64 seconds, qint64 nanoseconds)
{
    const time_t t = time_t(seconds);
    struct tm tm;
    if (!::localtime_r(&t, &tm))
        return QByteArray::number(seconds);
    char date[64];
    char zone[16];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
    std::strftime(zone, sizeof zone, "%z", &tm);
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s.%09lld %s", date, (long long)qMax<qint64>(nanoseconds, 0), zone);
    return QByteArray(buf);
}

const char *jsonTypeName(Qvfs::FileType type)
{
    return namesOf(type).json;
}

QString typeDescription(Qvfs::FileType type, qint64 size)
{
    if (type == Qvfs::FileType::Regular && size == 0)
        return QCoreApplication::translate("qvfs", "regular empty file");
    return QCoreApplication::translate("qvfs", namesOf(type).description);
}

void appendJsonString(QByteArray &out, QByteArrayView text)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    qsizetype run = 0; // start of the bytes not yet copied
    for (qsizetype i = 0; i < text.size(); ++i) {
        const auto c = uchar(text.at(i));
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(text.data() + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
            break;
        }
    }
    out.append(text.data() + run, text.size() - run);
    out += '"';
}

static void appendKey(QByteArray &out, const char *key)
{
    if (!out.endsWith('{'))
        out += ',';
    out += '"';
    out += key;
    out += "\":";
}

void appendJsonBytes(QByteArray &out, const char *key, QByteArrayView bytes)
{
    appendKey(out, key);
    if (bytes.isValidUtf8()) {
        appendJsonString(out, bytes);
        return;
    }
    out += "null";
    appendKey(out, QByteArray(QByteArray(key) + "_bytes").constData());
    out += '"';
    out += bytes.toByteArray().toBase64();
    out += '"';
}

void appendJsonNumber(QByteArray &out, const char *key, qint64 value)
{
    appendKey(out, key);
    out += QByteArray::number(value);
}

void appendJsonNanoseconds(QByteArray &out, const char *key, qint64 seconds, qint64 nanoseconds)
{
    const qint64 ns = qBound(qint64(0), nanoseconds, qint64(999999999));
    qint64 total = 0;
    if (!qMulOverflow<qint64>(seconds, 1000000000, &total) && !qAddOverflow<qint64>(total, ns, &total)) {
        appendJsonNumber(out, key, total);
        return;
    }
    // Wider than 64 bits: the digits of the seconds, then nine of the nanoseconds. A time
    // before 1970 is -(|seconds| - 1) s - (1e9 - ns) ns when ns > 0.
    appendJsonNumber(out, key, 0);
    out.chop(1);
    quint64 whole = seconds < 0 ? quint64(0) - quint64(seconds) : quint64(seconds);
    qint64 fraction = ns;
    if (seconds < 0) {
        out += '-';
        if (fraction > 0) {
            whole -= 1;
            fraction = 1000000000 - fraction;
        }
    }
    char digits[16];
    std::snprintf(digits, sizeof digits, "%09lld", static_cast<long long>(fraction));
    out += QByteArray::number(whole);
    out += digits;
}

QByteArray entryJson(const Qvfs::Entry &e, QByteArrayView name, const QUrl &url)
{
    using namespace Qvfs;
    QByteArray o;
    o.reserve(256);
    o += '{';
    appendJsonBytes(o, "name", name);
    if (!url.isEmpty()) {
        appendKey(o, "url");
        appendJsonString(o, url.toEncoded());
    }
    appendKey(o, "type");
    o += '"';
    o += jsonTypeName(e.type());
    o += '"';
    struct NumberField
    {
        Field field;
        const char *key;
    };
    static const NumberField numbers[]
        = { { Size, "size" }, { Mode, "mode" }, { NLink, "nlink" }, { Uid, "uid" }, { Gid, "gid" } };
    for (const NumberField &n : numbers) {
        if (e.contains(n.field))
            appendJsonNumber(o, n.key, e.number(n.field));
    }
    if (e.contains(User))
        appendJsonBytes(o, "user", e.bytes(User));
    if (e.contains(Group))
        appendJsonBytes(o, "group", e.bytes(Group));
    struct TimeField
    {
        Field seconds;
        Field nanoseconds;
        const char *key;
        const char *keyNs;
    };
    static const TimeField times[] = { { MTime, MTimeNs, "mtime", "mtime_ns" }, { ATime, ATimeNs, "atime", "atime_ns" },
        { BTime, BTimeNs, "btime", "btime_ns" } };
    for (const TimeField &t : times) {
        if (!e.contains(t.seconds))
            continue;
        const qint64 s = e.number(t.seconds);
        appendJsonNumber(o, t.key, s);
        appendJsonNanoseconds(o, t.keyNs, s, e.number(t.nanoseconds, 0));
    }
    static const NumberField more[] = { { Inode, "inode" }, { Device, "device" }, { Blocks, "blocks" } };
    for (const NumberField &n : more) {
        if (e.contains(n.field))
            appendJsonNumber(o, n.key, e.number(n.field));
    }
    if (e.contains(LinkTarget))
        appendJsonBytes(o, "target", e.bytes(LinkTarget));
    if (e.number(Hidden, 0) != 0) {
        appendKey(o, "hidden");
        o += "true";
    }
    if (e.number(ReadOnly, 0) != 0) {
        appendKey(o, "readonly");
        o += "true";
    }
    if (e.contains(MimeType))
        appendJsonBytes(o, "mimetype", e.bytes(MimeType));
    if (e.contains(OriginalPath))
        appendJsonBytes(o, "original_path", e.bytes(OriginalPath));
    if (e.contains(DeletionTime))
        appendJsonNumber(o, "deletion_time", e.number(DeletionTime));
    o += '}';
    return o;
}

QString formatSize(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QByteArray humanSize(qint64 bytes)
{
    if (bytes < 1024)
        return QByteArray::number(bytes);
    static const char units[] = "KMGTPE";
    double v = double(bytes);
    int u = -1;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    // Round up, like du -h.
    if (v < 10) {
        double r = std::ceil(v * 10) / 10;
        if (r < 10)
            return QByteArray::number(r, 'f', 1) + units[u];
        v = r;
    }
    double r = std::ceil(v);
    if (r >= 1024 && u < 5)
        return QByteArray("1.0") + units[u + 1];
    return QByteArray::number(qint64(r)) + units[u];
}

QString formatDuration(qint64 seconds)
{
    if (seconds < 0)
        seconds = 0;
    const qint64 h = seconds / 3600;
    const qint64 m = (seconds / 60) % 60;
    const qint64 s = seconds % 60;
    if (h > 0)
        return QStringLiteral("%1:%2:%3").arg(h).arg(m, 2, 10, QLatin1Char('0')).arg(s, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(m).arg(s, 2, 10, QLatin1Char('0'));
}

int terminalWidth(int fd)
{
    struct winsize ws;
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    bool ok = false;
    const int cols = qEnvironmentVariableIntValue("COLUMNS", &ok);
    return ok && cols > 0 ? cols : 80;
}

} // namespace Cli
