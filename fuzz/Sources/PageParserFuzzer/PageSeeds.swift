/// Seed pages: the API's two shapes, the odd spellings the decoder accepts
/// (numbers as strings, `limit` for the page size, mixed shapes) and products
/// with missing, null and odd thumbnails.
enum PageSeeds {
    static let all: [String] = [
        #"{"pageNo":1,"itemsPerPage":2,"totalCount":3,"offset":0,"limit":2,"lastPage":2,"hasNext":true,"hasPrev":false,"pages":[{"id":1,"vendor_id":7,"vendorName":"v","name":"a","description":"d","thumbnail":"https://img.example.com/t/1_thumb","currency":"KRW","price":1000,"bargain_price":900,"discounted_price":100,"stock":3,"created_at":"2023-03-23T00:00:00","issued_at":"2023-03-23T00:00:00"},{"id":2,"thumbnail":null}]}"#,
        #"{"page_no":2,"items_per_page":2,"total_count":3,"last_page":2,"has_next":false,"has_prev":true,"pages":[{"id":"3","thumbnail":"HTTP://Img.Example.com:80/a/./b/../c.jpg#top","price":"12.5"}]}"#,
        #"{"page_no":"1","limit":20,"total_count":"40","pages":[{"id":4.0,"thumbnail":"  https://x.example:8443/p?q=1&r=%20  "},{"name":"no id"},{"id":5,"thumbnail":""}]}"#,
        #"{"pageNo":1,"total_count":1,"items_per_page":1,"hasNext":"false","pages":[{"id":6,"thumbnail":"ftp://example.com/x"}]}"#,
        #"{"pageNo":3,"itemsPerPage":0,"totalCount":0,"pages":[]}"#,
        #"{"page_no":1,"items_per_page":100,"total_count":2,"pages":[{"id":7,"thumbnail":"http://[::1]:8080/t"},{"id":8,"thumbnail":"http://user@host/../../etc/passwd"}]}"#,
        // Regression: trapped on overflow in the page count before counts were bounded.
        #"{"pageNo":1,"itemsPerPage":2,"totalCount":9223372036854775807,"pages":[]}"#,
    ]
}
