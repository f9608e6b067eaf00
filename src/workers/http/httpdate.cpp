// SPDX-License-Identifier: LGPL-2.1-or-later
#include "httpdate_p.h"

#include <cstdio>
#include <cstring>

namespace Qvfs::Http
{

namespace
{

const char *const monthNames[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
const char *const dayNames[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" }; // 1970-01-01 was a Thursday

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
qint64 daysFromCivil(qint64 y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + qint64(doe) - 719468;
}

bool isLeap(qint64 y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned daysInMonth(qint64 y, unsigned m)
{
    static const unsigned days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && isLeap(y) ? 29 : days[m - 1];
}

// A cursor over the text; every reader returns false when the text does not match.
class Cursor
{
public:
    explicit Cursor(QByteArrayView t)
        : m_p(t.data())
        , m_end(t.data() + t.size())
    { }
    bool atEnd() const { return m_p == m_end; }
    char peek() const { return m_p == m_end ? '\0' : *m_p; }
    bool literal(char c)
    {
        if (m_p == m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }
    void spaces()
    {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\t'))
            ++m_p;
    }
    // exactly minDigits..maxDigits decimal digits
    bool number(int minDigits, int maxDigits, qint64 *out)
    {
        qint64 v = 0;
        int n = 0;
        while (m_p != m_end && n < maxDigits && *m_p >= '0' && *m_p <= '9') {
            v = v * 10 + (*m_p - '0');
            ++m_p;
            ++n;
        }
        *out = v;
        return n >= minDigits;
    }
    bool month(unsigned *out)
    {
        if (m_end - m_p < 3)
            return false;
        for (unsigned i = 0; i < 12; ++i) {
            if (qstrnicmp(m_p, monthNames[i], 3) == 0) {
                m_p += 3;
                *out = i + 1;
                return true;
            }
        }
        return false;
    }
    // a day name, short or long; its value is not checked
    bool dayName()
    {
        const char *start = m_p;
        while (m_p != m_end && ((*m_p >= 'A' && *m_p <= 'Z') || (*m_p >= 'a' && *m_p <= 'z')))
            ++m_p;
        return m_p - start >= 3 && m_p - start <= 9;
    }
    bool time(qint64 *h, qint64 *mi, qint64 *s)
    {
        return number(2, 2, h) && literal(':') && number(2, 2, mi) && literal(':') && number(2, 2, s);
    }
    bool gmt()
    {
        spaces();
        if (m_end - m_p >= 3 && qstrnicmp(m_p, "GMT", 3) == 0) {
            m_p += 3;
            return true;
        }
        if (m_end - m_p >= 3 && qstrnicmp(m_p, "UTC", 3) == 0) {
            m_p += 3;
            return true;
        }
        return false;
    }

private:
    const char *m_p;
    const char *m_end;
};

std::optional<qint64> assemble(qint64 y, unsigned m, qint64 d, qint64 h, qint64 mi, qint64 s)
{
    if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || s > 60)
        return std::nullopt;
    if (s == 60) // a leap second: the next one is as good
        s = 59;
    return daysFromCivil(y, m, unsigned(d)) * 86400 + h * 3600 + mi * 60 + s;
}

std::optional<qint64> parseIso(QByteArrayView t)
{
    Cursor c(t);
    qint64 y, mo, d, h, mi, s;
    if (!(c.number(4, 4, &y) && c.literal('-') && c.number(2, 2, &mo) && c.literal('-') && c.number(2, 2, &d)))
        return std::nullopt;
    if (!(c.literal('T') || c.literal('t') || c.literal(' ')))
        return std::nullopt;
    if (!c.time(&h, &mi, &s))
        return std::nullopt;
    if (c.literal('.')) {
        qint64 frac;
        if (!c.number(1, 9, &frac))
            return std::nullopt;
        while (c.peek() >= '0' && c.peek() <= '9')
            c.literal(c.peek());
    }
    qint64 offset = 0;
    if (c.literal('Z') || c.literal('z')) {
    } else if (c.peek() == '+' || c.peek() == '-') {
        const bool minus = c.peek() == '-';
        c.literal(c.peek());
        qint64 oh, om;
        if (!c.number(2, 2, &oh))
            return std::nullopt;
        c.literal(':'); // optional: +0100 and +01:00
        if (!c.number(2, 2, &om) || oh > 23 || om > 59)
            return std::nullopt;
        offset = (oh * 3600 + om * 60) * (minus ? -1 : 1);
    } else {
        return std::nullopt;
    }
    if (!c.atEnd())
        return std::nullopt;
    const auto r = assemble(y, unsigned(mo), d, h, mi, s);
    if (!r)
        return std::nullopt;
    return *r - offset;
}

} // namespace

std::optional<qint64> parseHttpDate(QByteArrayView text)
{
    while (!text.isEmpty()
        && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r' || text.front() == '\n'))
        text = text.sliced(1);
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n'))
        text.chop(1);
    if (text.isEmpty() || text.size() > 64)
        return std::nullopt;
    if (text.front() >= '0' && text.front() <= '9')
        return parseIso(text);

    Cursor c(text);
    if (!c.dayName())
        return std::nullopt;
    qint64 y, d, h, mi, s;
    unsigned m;
    if (c.literal(',')) {
        c.spaces();
        qint64 d2;
        if (!c.number(1, 2, &d2))
            return std::nullopt;
        d = d2;
        if (c.literal('-')) {
            // RFC 850: 06-Nov-94
            if (!(c.month(&m) && c.literal('-') && c.number(2, 4, &y)))
                return std::nullopt;
            if (y < 100) // two-digit years: RFC 9110 says to read them as within 50 years
                y += y < 70 ? 2000 : 1900;
        } else {
            // IMF-fixdate: 06 Nov 1994
            c.spaces();
            if (!c.month(&m))
                return std::nullopt;
            c.spaces();
            if (!c.number(4, 4, &y))
                return std::nullopt;
        }
        c.spaces();
        if (!c.time(&h, &mi, &s) || !c.gmt())
            return std::nullopt;
    } else {
        // asctime: Sun Nov  6 08:49:37 1994
        c.spaces();
        if (!c.month(&m))
            return std::nullopt;
        c.spaces();
        if (!c.number(1, 2, &d))
            return std::nullopt;
        c.spaces();
        if (!c.time(&h, &mi, &s))
            return std::nullopt;
        c.spaces();
        if (!c.number(4, 4, &y))
            return std::nullopt;
    }
    c.spaces();
    if (!c.atEnd())
        return std::nullopt;
    return assemble(y, m, d, h, mi, s);
}

QByteArray formatHttpDate(qint64 secondsSinceEpoch)
{
    // clamp to years 0..9999
    constexpr qint64 minSecs = -62167219200LL; // 0000-01-01
    constexpr qint64 maxSecs = 253402300799LL; // 9999-12-31T23:59:59
    const qint64 t
        = secondsSinceEpoch < minSecs ? minSecs : (secondsSinceEpoch > maxSecs ? maxSecs : secondsSinceEpoch);
    qint64 days = t / 86400;
    qint64 rem = t % 86400;
    if (rem < 0) {
        rem += 86400;
        --days;
    }
    // civil_from_days (Howard Hinnant)
    const qint64 z = days + 719468;
    const qint64 era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = unsigned(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    qint64 y = qint64(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    const qint64 wd = ((days % 7) + 7) % 7;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s, %02u %s %04lld %02lld:%02lld:%02lld GMT", dayNames[wd], d, monthNames[m - 1],
        static_cast<long long>(y), static_cast<long long>(rem / 3600), static_cast<long long>((rem / 60) % 60),
        static_cast<long long>(rem % 60));
    return QByteArray(buf);
}

} // namespace Qvfs::Http
