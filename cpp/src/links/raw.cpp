// Link `raw`: the thesis's link. A transfer of b bytes puts b bytes on the wire and takes
// b / bandwidth.
#include "dnnmem/compose.hpp"

namespace dnnmem {

extern const LinkPart link_raw{
    "raw", "bytes / bandwidth: every byte crosses the link as it is (thesis)", {},
    [](const Schedule&, const Options&, const LinkTables&) { return LinkModel{}; }};

}  // namespace dnnmem
