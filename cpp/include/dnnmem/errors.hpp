// Errors the core reports. Every error about a network file names the file, the layer and the
// field, so a user can fix the file without reading our code.
#pragma once

#include <stdexcept>
#include <string>

namespace dnnmem {

class NetworkError : public std::runtime_error {
 public:
  NetworkError(std::string source, std::string layer, std::string field, const std::string& what);

  const std::string& source() const noexcept { return source_; }
  const std::string& layer() const noexcept { return layer_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string source_, layer_, field_, detail_;
};

}  // namespace dnnmem
