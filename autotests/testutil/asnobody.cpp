// SPDX-License-Identifier: LGPL-2.1-or-later
#include "asnobody.h"

#include <unistd.h>

namespace QvfsTest
{

AsNobody::AsNobody()
{
    if (::geteuid() != 0) {
        m_ok = true; // already unprivileged
        return;
    }
    m_ok = ::setegid(65534) == 0 && ::seteuid(65534) == 0;
    m_changed = m_ok;
    if (!m_ok)
        (void)!::setegid(0);
}

AsNobody::~AsNobody()
{
    if (m_changed) {
        (void)!::seteuid(0);
        (void)!::setegid(0);
    }
}

} // namespace QvfsTest
