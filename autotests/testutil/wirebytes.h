// SPDX-License-Identifier: LGPL-2.1-or-later
// Payloads built by hand, byte by byte, for the tests of the record codec and the framing
// (entrytest, frametest): what a broken or hostile peer could send. Header-only, on the
// wire's internal helpers (wire_p.h): those tests link Qvfs::Proto and no test library.
#ifndef QVFS_TESTUTIL_WIREBYTES_H
#define QVFS_TESTUTIL_WIREBYTES_H

#include "wire_p.h"

#include <QByteArray>
#include <QByteArrayView>

#include <initializer_list>

namespace QvfsTest
{

/*! Appends what it is given to m, each call returning the builder: Bytes().v(3).s("a").m. */
class WireBytes
{
public:
    /*! A varint. */
    WireBytes &v(quint64 x)
    {
        Qvfs::Wire::appendVarint(m, x);
        return *this;
    }
    /*! A signed number, zigzag-encoded as a varint. */
    WireBytes &z(qint64 x) { return v(Qvfs::Wire::zigzag(x)); }
    /*! One byte. */
    WireBytes &b(quint8 x)
    {
        m.append(char(x));
        return *this;
    }
    /*! A length-prefixed string. */
    WireBytes &s(QByteArrayView x)
    {
        Qvfs::Wire::appendBytes(m, x);
        return *this;
    }
    /*! Bytes as they are. */
    WireBytes &raw(QByteArrayView x)
    {
        m.append(x.data(), x.size());
        return *this;
    }
    /*! A key set definition of a listing batch (entrycodec_p.h): tag 0, \a id, \a fields. */
    WireBytes &def(quint8 id, std::initializer_list<quint64> fields)
    {
        b(0).b(id).v(fields.size());
        for (quint64 f : fields)
            v(f);
        return *this;
    }
    QByteArray m;
};

} // namespace QvfsTest

#endif
